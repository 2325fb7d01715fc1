// Passes when the files are read and merged in order.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const { loadSettings } = await import(pathToFileURL(path.resolve("src/load-settings.mjs")).href);
const folder = mkdtempSync(path.join(os.tmpdir(), "spark-eval-settings-"));
try {
  const base = path.join(folder, "base.json");
  const local = path.join(folder, "local.json");
  writeFileSync(base, JSON.stringify({ port: 80, host: "example.com" }));
  writeFileSync(local, JSON.stringify({ port: 8080 }));
  assert.deepEqual(await loadSettings([base, local]), { port: 8080, host: "example.com" });
  assert.deepEqual(await loadSettings([]), {});
} finally {
  rmSync(folder, { recursive: true, force: true });
}
