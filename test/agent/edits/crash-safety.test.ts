// Crash safety of the edit engine's writes: a failure injected between temp write and rename
// leaves the original whole and no temp file; a writer SIGKILLed mid-loop never leaves a partial
// file, and the temp file it leaves is cleaned by the next write.
import { spawn } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPatch } from "../../../src/agent/edits/apply-patch.ts";
import { applySearchReplace } from "../../../src/agent/edits/apply-search-replace.ts";
import { writeFileAtomic } from "../../../src/agent/edits/write-file-atomic.ts";
import { createTempWorkspace, type TempWorkspace } from "./temp-workspace.ts";

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));
const childScript = fileURLToPath(new URL("./atomic-writer-child.ts", import.meta.url));

describe("injected crash between temp write and rename", () => {
  let workspace: TempWorkspace;

  beforeEach(() => {
    workspace = createTempWorkspace("spark-crash-");
  });

  afterEach(() => {
    workspace.remove();
  });

  const crash = () => {
    throw new Error("simulated crash before rename");
  };

  it("leaves a search/replace target whole, no temp file, no undo entry, and stays editable", async () => {
    workspace.writeAndRead("src/a.ts", "export const value = 1;\n");
    await expect(
      applySearchReplace({
        workspaceRoot: workspace.root,
        path: "src/a.ts",
        oldText: "value = 1",
        newText: "value = 2",
        ledger: workspace.ledger,
        undoStack: workspace.undoStack,
        beforeRename: crash,
      }),
    ).rejects.toThrow("simulated crash before rename");
    expect(workspace.read("src/a.ts")).toBe("export const value = 1;\n");
    expect(readdirSync(path.join(workspace.root, "src"))).toEqual(["a.ts"]);
    expect(workspace.undoStack.size).toBe(0);
    const retried = await applySearchReplace({
      workspaceRoot: workspace.root,
      path: "src/a.ts",
      oldText: "value = 1",
      newText: "value = 2",
      ledger: workspace.ledger,
      undoStack: workspace.undoStack,
    });
    expect(retried.rung).toBe("exact");
    expect(workspace.read("src/a.ts")).toBe("export const value = 2;\n");
  });

  it("leaves every file of a multi-file patch whole when the last rename crashes", async () => {
    workspace.writeAndRead("a.txt", "a\n");
    workspace.writeAndRead("b.txt", "b\n");
    let renames = 0;
    await expect(
      applyPatch({
        workspaceRoot: workspace.root,
        patchText: [
          "*** Begin Patch",
          "*** Update File: a.txt",
          "@@",
          "-a",
          "+A",
          "*** Add File: dir/c.txt",
          "+c",
          "*** Update File: b.txt",
          "@@",
          "-b",
          "+B",
          "*** End Patch",
        ].join("\n"),
        ledger: workspace.ledger,
        undoStack: workspace.undoStack,
        beforeRename: () => {
          renames += 1;
          if (renames === 3) crash();
        },
      }),
    ).rejects.toThrow("simulated crash before rename");
    expect(workspace.read("a.txt")).toBe("a\n");
    expect(workspace.read("b.txt")).toBe("b\n");
    expect(
      readdirSync(workspace.root)
        .filter((name) => name !== "dir")
        .sort(),
    ).toEqual(["a.txt", "b.txt"]);
    expect(readdirSync(path.join(workspace.root, "dir"))).toEqual([]);
    expect(workspace.undoStack.size).toBe(0);
  });
});

describe("writer killed with SIGKILL mid-write", () => {
  const size = 2 * 1024 * 1024;
  const contentA = Buffer.alloc(size, "A");
  const contentB = Buffer.alloc(size, "B");
  let directory: string;

  beforeEach(() => {
    // The real temp folder (not tmpfs), so writes and fsyncs take real time.
    directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-sigkill-")));
  });

  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  function isWhole(bytes: Buffer): boolean {
    return bytes.equals(contentA) || bytes.equals(contentB);
  }

  function startWriter(target: string, mode?: string) {
    const argumentsList = ["--import", "tsx", childScript, target, String(size)];
    const child = spawn(
      process.execPath,
      mode === undefined ? argumentsList : [...argumentsList, mode],
      {
        cwd: repositoryRoot,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => {
      child.on("exit", (_code, signal) => resolve(signal));
    });
    /** Resolves once `accept` returns true for the child's output so far. */
    const waitForOutput = (accept: (output: string) => boolean) =>
      new Promise<void>((resolve, reject) => {
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (accept(output)) resolve();
        });
        child.on("exit", () => reject(new Error(`writer exited early: ${stderr}`)));
      });
    return { child, exited, waitForOutput };
  }

  it("always leaves the old or the new content, never a partial file", async () => {
    const target = path.join(directory, "target.txt");
    writeFileSync(target, contentA);
    for (const [round, delay] of [0, 2, 7].entries()) {
      const writer = startWriter(target);
      const readsWhole: boolean[] = [];
      await writer.waitForOutput((output) => {
        // Readers racing the writer must only ever see a whole old or new file.
        readsWhole.push(isWhole(readFileSync(target)));
        return output.split("wrote").length - 1 >= 2 + round;
      });
      await new Promise((resolve) => setTimeout(resolve, delay));
      writer.child.kill("SIGKILL");
      expect(await writer.exited).toBe("SIGKILL");
      expect(readsWhole.every(Boolean)).toBe(true);
      expect(isWhole(readFileSync(target))).toBe(true);
    }
  }, 60_000);

  it("keeps the old content when killed between temp write and rename; the next write cleans up", async () => {
    const target = path.join(directory, "target.txt");
    writeFileSync(target, contentA);
    const writer = startWriter(target, "hold-before-rename");
    await writer.waitForOutput((output) => output.includes("staged"));
    writer.child.kill("SIGKILL");
    expect(await writer.exited).toBe("SIGKILL");
    expect(readFileSync(target).equals(contentA)).toBe(true);
    const leftovers = readdirSync(directory).filter((name) => name.endsWith(".spark-tmp"));
    expect(leftovers).toHaveLength(1);
    expect(readFileSync(path.join(directory, leftovers[0] ?? "")).equals(contentB)).toBe(true);
    await writeFileAtomic(target, contentB);
    expect(readdirSync(directory)).toEqual(["target.txt"]);
    expect(readFileSync(target).equals(contentB)).toBe(true);
  }, 60_000);
});
