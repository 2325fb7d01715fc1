// Detection says "none" with a reason a person can act on: another platform, no bwrap on PATH,
// or a bwrap that cannot make its namespaces here (its own words).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeCommandSandbox } from "./detect-command-sandbox.ts";

let directory: string | undefined;
afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

describe("probeCommandSandbox", () => {
  it("has no sandbox off Linux", async () => {
    expect(await probeCommandSandbox({ platform: "darwin", searchPath: "/usr/bin" })).toEqual({
      kind: "none",
      reason: "no sandbox is implemented for darwin",
    });
  });

  it("says when bwrap is not on PATH", async () => {
    directory = mkdtempSync(path.join(os.tmpdir(), "spark-no-bwrap-"));
    expect(await probeCommandSandbox({ platform: "linux", searchPath: directory })).toEqual({
      kind: "none",
      reason: "bwrap is not on PATH (install the bubblewrap package)",
    });
  });

  it("tries bwrap rather than trusting that it is there, and keeps its first error line", async () => {
    directory = mkdtempSync(path.join(os.tmpdir(), "spark-broken-bwrap-"));
    const fake = path.join(directory, "bwrap");
    writeFileSync(
      fake,
      '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\necho more >&2\nexit 1\n',
    );
    chmodSync(fake, 0o755);
    expect(await probeCommandSandbox({ platform: "linux", searchPath: directory })).toEqual({
      kind: "none",
      reason: `${fake} cannot run here: bwrap: setting up uid map: Permission denied`,
    });
  });
});
