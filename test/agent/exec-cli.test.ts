// `spark exec` as a user runs it: a child process in a temporary repository with SPARK_HOME in a
// temp dir, the model a script file. Checks the JSONL events, the edit on disk, resume, exit codes.
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark, sparkText } from "./support/spark-exec.ts";

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

describe("spark exec", () => {
  it("edits a file headless, streams JSONL events, resumes, lists and undoes", async () => {
    workspace = createAgentWorkspace();
    workspace.write("src/greet.ts", 'export const greeting = "hello";\n');
    const patch = `*** Begin Patch\n*** Update File: src/greet.ts\n-export const greeting = "hello";\n+export const greeting = "hi";\n*** End Patch`;
    const first = script(workspace, "first.jsonl", [
      { text: "Reading.", toolCalls: [{ name: "read_file", arguments: { path: "src/greet.ts" } }] },
      { text: "Patching.", toolCalls: [{ name: "apply_patch", arguments: { patch } }] },
      { text: "Done.", expect: { lastMessageIncludes: "Patch applied" } },
    ]);
    const run = await spark(workspace, ["exec", "--json", "--model", `script:${first}`, "Say hi"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(workspace.read("src/greet.ts")).toBe('export const greeting = "hi";\n');
    const types = new Set(run.events.map((event) => event.type));
    for (const type of [
      "session-started",
      "turn-started",
      "text-delta",
      "tool-call",
      "tool-result",
      "edit-applied",
      "budget",
      "turn-finished",
    ]) {
      expect(types.has(type as AgentEvent["type"]), type).toBe(true);
    }
    const edit = run.events.find((event) => event.type === "edit-applied");
    expect(edit).toMatchObject({
      path: "src/greet.ts",
      unifiedDiff: expect.stringContaining('+export const greeting = "hi";') as unknown,
    });
    const finished = run.events.at(-1);
    expect(finished).toMatchObject({ type: "turn-finished", reason: "completed", steps: 3 });
    if (finished?.type === "turn-finished") {
      expect(finished.usage.outputTokens).toBeGreaterThan(0);
      expect(finished.timings.totalMs).toBeGreaterThan(0);
    }

    const second = script(workspace, "second.jsonl", [
      {
        text: "It says hi.",
        expect: { anyMessageIncludes: "Say hi", lastMessageIncludes: "What now?" },
      },
    ]);
    const resumed = await spark(workspace, [
      "exec",
      "--json",
      "--resume",
      "last",
      "--model",
      `script:${second}`,
      "What now?",
    ]);
    expect(resumed.code).toBe(0);
    const started = run.events[0];
    const sessions = await sparkText(workspace, ["sessions", "--json"]);
    expect(sessions.code).toBe(0);
    expect(JSON.parse(sessions.stdout.trim())).toMatchObject({
      turns: 2,
      firstInstruction: "Say hi",
    });
    const undo = await sparkText(workspace, ["undo", "--json"]);
    expect(undo.code).toBe(0);
    expect(workspace.read("src/greet.ts")).toBe('export const greeting = "hello";\n');
    // The next turn tells the model its edit was undone.
    const afterUndo = script(workspace, "third.jsonl", [
      {
        text: "Noted.",
        expect: { lastMessageIncludes: "The user undid your last edit (src/greet.ts)" },
      },
    ]);
    const third = await spark(workspace, [
      "exec",
      "--json",
      "--resume",
      "last",
      "--model",
      `script:${afterUndo}`,
      "ok",
    ]);
    expect(third.code).toBe(0);
    expect(resumed.events[0]).toMatchObject({
      type: "session-started",
      resumed: true,
      sessionId: started?.type === "session-started" ? started.sessionId : "",
    });
  });

  it("exits 130 when interrupted with Ctrl-C, stopping the running command", async () => {
    workspace = createAgentWorkspace();
    const sleeper = script(workspace, "sleep.jsonl", [
      {
        text: "Waiting.",
        toolCalls: [{ name: "run_command", arguments: { command: "sleep 20" } }],
      },
    ]);
    const run = await spark(
      workspace,
      ["exec", "--json", "--allow-commands", "--model", `script:${sleeper}`, "wait"],
      (event, child) => {
        if (event.type === "tool-call") setTimeout(() => child.kill("SIGINT"), 100);
      },
    );
    expect(run.code).toBe(130);
    expect(run.events.find((event) => event.type === "tool-result")).toMatchObject({
      isError: true,
      output: expect.stringContaining("[interrupted by the user]") as unknown,
    });
    expect(run.events.at(-1)).toMatchObject({ type: "turn-finished", reason: "interrupted" });
  }, 15_000);

  it("exits 2 for a usage error", async () => {
    workspace = createAgentWorkspace();
    const run = await spark(workspace, [
      "exec",
      "--resume",
      "nope",
      "--model",
      "script:x.jsonl",
      "hi",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`No session "nope"`);
  });
});
