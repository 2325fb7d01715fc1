// `spark serve --open` runs the desktop's opener when one is on PATH and only says where to go
// when none is: it never fails the server.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openBrowser } from "./open-browser.ts";

const originalPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = originalPath;
});

describe.skipIf(process.platform === "win32")("openBrowser", () => {
  it("runs xdg-open with the URL when it is on PATH", async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), "spark-opener-"));
    const record = path.join(directory, "opened.txt");
    const opener = path.join(directory, process.platform === "darwin" ? "open" : "xdg-open");
    writeFileSync(opener, `#!/bin/sh\necho "$1" > "${record}"\n`);
    chmodSync(opener, 0o755);
    process.env.PATH = directory;
    const lines: string[] = [];
    openBrowser("http://127.0.0.1:7777/", (line) => lines.push(line));
    // The shell creates the file before echo writes into it: wait for its line, not its name.
    const written = (): boolean =>
      existsSync(record) && readFileSync(record, "utf8").includes("\n");
    for (let attempt = 0; attempt < 100 && !written(); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(readFileSync(record, "utf8").trim()).toBe("http://127.0.0.1:7777/");
    expect(lines).toEqual([]);
  });

  it("says where to go when there is no opener", () => {
    process.env.PATH = mkdtempSync(path.join(os.tmpdir(), "spark-no-opener-"));
    const lines: string[] = [];
    openBrowser("http://127.0.0.1:7777/", (line) => lines.push(line));
    expect(lines).toEqual([
      "No browser opener (xdg-open/open) found; open http://127.0.0.1:7777/ yourself.",
    ]);
  });
});
