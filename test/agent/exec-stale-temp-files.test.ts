// A killed edit leaves no temp file behind for long (issue 8): a writer SIGKILLed between its
// synced temp file and the rename leaves a 20 MB leftover; the next `spark exec` removes it
// without touching that file again. A writer that exits mid-edit removes its own.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { tempJournalDirectory } from "../../src/agent/edits/temp-file-journal.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));
const writerChild = fileURLToPath(new URL("./edits/atomic-writer-child.ts", import.meta.url));
const SIZE = 20 * 1024 * 1024;

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

/** Starts the atomic writer on `target`; resolves with its pid once `ready` shows in its output. */
function startWriter(target: string, mode: string) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", writerChild, target, String(SIZE), mode],
    { cwd: repositoryRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const staged = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("staged")) resolve();
    });
    child.once("exit", () => reject(new Error(`writer exited before staging: ${stderr}`)));
  });
  // Only the tests that wait for staging care; the others let the writer exit.
  staged.catch(() => undefined);
  return { child, exited, staged };
}

function leftovers(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.endsWith(".spark-tmp"));
}

describe("temp files of killed edits", () => {
  it("are removed by the next spark exec, wherever they are", async () => {
    workspace = createAgentWorkspace();
    workspace.write("data/big.json", "original\n");
    const writer = startWriter(path.join(workspace.root, "data", "big.json"), "hold-before-rename");
    await writer.staged;
    const pid = writer.child.pid;
    writer.child.kill("SIGKILL");
    expect(await writer.exited).toMatchObject({ signal: "SIGKILL" });
    const [leftover] = leftovers(path.join(workspace.root, "data"));
    expect(leftover).toMatch(new RegExp(`^\\.big\\.json\\.${pid}\\.[0-9a-f]{8}\\.spark-tmp$`));
    expect(statSync(path.join(workspace.root, "data", leftover ?? "")).size).toBe(SIZE);
    expect(existsSync(path.join(tempJournalDirectory(), `${pid}.list`))).toBe(true);

    const file = script(workspace, "idle.jsonl", [{ text: "Nothing to do." }]);
    const run = await spark(workspace, ["exec", "--json", "--model", `script:${file}`, "hi"]);
    expect(run.code).toBe(0);
    expect(leftovers(path.join(workspace.root, "data"))).toEqual([]);
    expect(workspace.read("data/big.json")).toBe("original\n");
    expect(existsSync(path.join(tempJournalDirectory(), `${pid}.list`))).toBe(false);
  }, 60_000);

  it("are removed by a writer that exits mid-edit", async () => {
    workspace = createAgentWorkspace();
    const target = path.join(workspace.root, "big.bin");
    writeFileSync(target, "original");
    const writer = startWriter(target, "exit-before-rename");
    expect(await writer.exited).toMatchObject({ code: 3 });
    expect(leftovers(workspace.root)).toEqual([]);
    expect(readFileSync(target, "utf8")).toBe("original");
    expect(existsSync(path.join(tempJournalDirectory(), `${writer.child.pid}.list`))).toBe(false);
  }, 60_000);

  it("of a live writer, or not listed in its journal, are left alone", async () => {
    workspace = createAgentWorkspace();
    // A name that only looks like Spark's, in a folder no edit writes to: not in any journal,
    // so no session removes it.
    workspace.write("notes/keep.txt", "x");
    const lookalike = path.join(workspace.root, "notes", ".keep.txt.4194999.0badc0de.spark-tmp");
    writeFileSync(lookalike, "mine");
    const writer = startWriter(path.join(workspace.root, "live.bin"), "hold-before-rename");
    await writer.staged;
    const file = script(workspace, "idle.jsonl", [{ text: "Nothing to do." }]);
    const run = await spark(workspace, ["exec", "--json", "--model", `script:${file}`, "hi"]);
    expect(run.code).toBe(0);
    expect(leftovers(workspace.root)).toHaveLength(1);
    writer.child.kill("SIGKILL");
    await writer.exited;
    expect(existsSync(lookalike)).toBe(true);
  }, 60_000);
});
