// Writes cannot be raced out of the workspace (issue 22): a process that swaps a folder for a
// symlink to an outside folder between Spark's path check and its write must not get a file
// written, replaced or deleted outside. Deterministic variants swap inside the writer's
// beforeRename hook; the looped variant swaps in a tight loop from another process.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPatch } from "../../../src/agent/edits/apply-patch.ts";
import { walkWorkspace } from "../../../src/agent/tools/walk-workspace.ts";
import { descriptorPathsAvailable } from "../../../src/agent/edits/descriptor-paths.ts";
import { EditError } from "../../../src/agent/edits/edit-error.ts";
import { openByPath } from "../../../src/agent/edits/workspace-directory.ts";
import { stageFileIn } from "../../../src/agent/edits/write-file-atomic.ts";
import { createTempWorkspace, type TempWorkspace } from "./temp-workspace.ts";

let workspace: TempWorkspace;
let outside: string;

beforeEach(() => {
  // The real temp folder, not /dev/shm: writes and fsyncs take real time, as on a user's disk.
  workspace = createTempWorkspace("spark-race-");
  outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-race-outside-")));
});

afterEach(() => {
  workspace.remove();
  rmSync(outside, { recursive: true, force: true });
});

function patch(...lines: string[]): string {
  return ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
}

function runPatch(patchText: string, beforeRename?: (tempPath: string) => void) {
  return applyPatch({
    workspaceRoot: workspace.root,
    patchText,
    ledger: workspace.ledger,
    undoStack: workspace.undoStack,
    ...(beforeRename === undefined ? {} : { beforeRename }),
  });
}

/** What an attacker does: `dir` becomes a link to the outside folder (the real one set aside). */
function swapForLink(relativeDirectory: string): string {
  const directory = path.join(workspace.root, relativeDirectory);
  const aside = `${directory}-aside`;
  renameSync(directory, aside);
  symlinkSync(outside, directory);
  return aside;
}

describe("a folder swapped for a link in the check/write gap (deterministic)", () => {
  it("never renames the new file into the outside folder", async () => {
    workspace.write("dir/keep.txt", "keep\n");
    const failure = await runPatch(patch("*** Add File: dir/new.txt", "+planted"), (tempPath) => {
      // Swap the folder, and carry Spark's finished temp file along, so a rename by path (which
      // now resolves through the link) would land it outside under the target's name.
      const aside = swapForLink("dir");
      const tempName = path.basename(tempPath);
      renameSync(path.join(aside, tempName), path.join(outside, tempName));
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
  });

  it("never restores or deletes through the link when a failed patch is rolled back", async () => {
    workspace.writeAndRead("dir/a.txt", "a\n");
    workspace.writeAndRead("b.txt", "b\n");
    writeFileSync(path.join(outside, "a.txt"), "precious a\n");
    writeFileSync(path.join(outside, "c.txt"), "precious c\n");
    let renames = 0;
    const failure = await runPatch(
      patch(
        "*** Update File: dir/a.txt",
        "@@",
        "-a",
        "+A",
        "*** Add File: dir/c.txt",
        "+c",
        "*** Update File: b.txt",
        "@@",
        "-b",
        "+B",
      ),
      () => {
        renames += 1;
        if (renames < 3) return;
        // dir/a.txt and dir/c.txt are written; rolling them back goes through the folder again.
        swapForLink("dir");
        throw new Error("simulated crash before the last rename");
      },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(readFileSync(path.join(outside, "a.txt"), "utf8")).toBe("precious a\n");
    expect(readFileSync(path.join(outside, "c.txt"), "utf8")).toBe("precious c\n");
    expect(workspace.read("b.txt")).toBe("b\n");
  });

  it("without /proc/self/fd, removes a file that landed outside and refuses (path fallback)", async () => {
    mkdirSync(path.join(workspace.root, "dir"));
    const directory = await openByPath(workspace.root, "dir", { create: false });
    if (directory === undefined) throw new Error("dir should exist");
    const staged = await stageFileIn(directory, "new.txt", Buffer.from("planted\n"), {
      beforeRename: (tempPath) => {
        const aside = swapForLink("dir");
        const tempName = path.basename(tempPath);
        renameSync(path.join(aside, tempName), path.join(outside, tempName));
      },
    });
    const failure = await staged.commit().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EditError);
    expect((failure as EditError).editCode).toBe("outside_workspace");
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
  });
});

/**
 * Swaps `directory` for a link to `outside` and back until killed, holding each state for a
 * few hundred microseconds so that a check, a temp-file write and a rename can each fall in a
 * different state. A plain `node -e` child, as another process on the user's machine would be.
 */
function startSwapper(directory: string): { stop: () => Promise<number> } {
  const source = `
    const fs = require("node:fs");
    const [directory, outside] = process.argv.slice(1);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    let swaps = 0;
    process.on("SIGTERM", () => { process.stdout.write(String(swaps)); process.exit(0); });
    process.stdout.write("ready\\n");
    const tick = () => {
      for (let round = 0; round < 200; round += 1) {
        // A fresh name each time: a writer may recreate the folder while it is set aside.
        const aside = directory + "-aside-" + swaps + "-" + round;
        try {
          fs.renameSync(directory, aside);
          fs.symlinkSync(outside, directory);
          Atomics.wait(pause, 0, 0, Math.random() * 0.6);
          fs.unlinkSync(directory);
          fs.renameSync(aside, directory);
          swaps += 1;
          Atomics.wait(pause, 0, 0, Math.random() * 0.6);
        } catch {}
      }
      setImmediate(tick);
    };
    tick();
  `;
  const child = spawn(process.execPath, ["-e", source, directory, outside], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      return Number(output.replace("ready\n", "")) || 0;
    },
  };
}

describe("a folder swapped for a link in a tight loop by another process", () => {
  // Without /proc/self/fd the fallback detects such a write after the rename and removes it, so
  // a file can exist outside for a moment; the promise tested here is Linux's: never at all.
  it.skipIf(!descriptorPathsAvailable())(
    "lets none of many Add File writes land outside the workspace",
    async () => {
      mkdirSync(path.join(workspace.root, "dir"));
      const swapper = startSwapper(path.join(workspace.root, "dir"));
      let written = 0;
      try {
        await new Promise((resolve) => setTimeout(resolve, 50));
        for (let index = 0; index < 300; index += 1) {
          await runPatch(patch(`*** Add File: dir/file-${index}.txt`, `+content ${index}`)).then(
            () => (written += 1),
            () => undefined, // Refused or raced: either is fine, as long as nothing lands outside.
          );
        }
      } finally {
        const swaps = await swapper.stop();
        expect(swaps).toBeGreaterThan(100);
      }
      expect(readdirSync(outside)).toEqual([]);
      expect(written).toBeGreaterThan(0);
    },
    60_000,
  );

  it.skipIf(!descriptorPathsAvailable())(
    "never lists the outside folder's names while walking the workspace",
    async () => {
      workspace.write("dir/inside.txt", "inside\n");
      writeFileSync(path.join(outside, "only-outside.txt"), "outside\n");
      const swapper = startSwapper(path.join(workspace.root, "dir"));
      const seen = new Set<string>();
      try {
        await new Promise((resolve) => setTimeout(resolve, 50));
        for (let round = 0; round < 800; round += 1) {
          for await (const file of walkWorkspace({ workspaceRoot: workspace.root })) {
            seen.add(path.basename(file));
          }
        }
      } finally {
        await swapper.stop();
      }
      expect(seen.has("inside.txt")).toBe(true);
      expect(seen.has("only-outside.txt")).toBe(false);
    },
    60_000,
  );
});
