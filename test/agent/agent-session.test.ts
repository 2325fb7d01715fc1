// The agent loop end to end through the real AgentSession, with the scripted engine standing in
// for the model: read then patch, steer mid-stream, interrupt a running command, queue, undo, resume.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readSession } from "../../src/agent/session-store/read-session.ts";
import {
  createAgentWorkspace,
  eventsOfType,
  startScriptedSession,
  type AgentWorkspace,
} from "./support/agent-workspace.ts";

const original = 'export const greeting = "hello";\nexport const name = "spark";\n';
const patch = [
  "*** Begin Patch",
  "*** Update File: src/greet.ts",
  '-export const greeting = "hello";',
  '+export const greeting = "hi";',
  ' export const name = "spark";',
  "*** End Patch",
].join("\n");
const readThenPatch = [
  {
    text: "I'll read it first.",
    toolCalls: [{ name: "read_file", arguments: { path: "src/greet.ts" } }],
    expect: { lastMessageIncludes: "Change the greeting" },
  },
  {
    text: "Now the patch.",
    toolCalls: [{ name: "apply_patch", arguments: { patch } }],
    expect: {
      lastMessageRole: "tool" as const,
      lastMessageIncludes: '1\texport const greeting = "hello";',
    },
  },
  { text: "Done: the greeting is now hi.", expect: { lastMessageIncludes: "Patch applied" } },
];

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

describe("agent session", () => {
  it("reads a file, patches it, and reports the edit with its diff", async () => {
    workspace = createAgentWorkspace();
    workspace.write("src/greet.ts", original);
    const { session, events } = await startScriptedSession(workspace, readThenPatch);
    const result = await session.submit("Change the greeting to hi.");
    expect(result).toMatchObject({
      reason: "completed",
      steps: 3,
      text: "Done: the greeting is now hi.",
    });
    expect(workspace.read("src/greet.ts")).toBe(
      'export const greeting = "hi";\nexport const name = "spark";\n',
    );
    const [edit] = eventsOfType(events, "edit-applied");
    expect(edit).toMatchObject({
      path: "src/greet.ts",
      kind: "update",
      linesAdded: 1,
      linesRemoved: 1,
    });
    expect(edit?.unifiedDiff).toContain(
      '-export const greeting = "hello";\n+export const greeting = "hi";',
    );
    expect(eventsOfType(events, "tool-call").map((event) => event.summary)).toEqual([
      "read_file src/greet.ts",
      "apply_patch src/greet.ts",
    ]);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("turn-started");
    expect(types.at(-1)).toBe("turn-finished");
    expect(eventsOfType(events, "budget")).toHaveLength(3);
    expect(eventsOfType(events, "budget")[0]).toMatchObject({
      limitTokens: 131072 - 8192,
      windowTokens: 131072,
    });
    await session.close();
  });

  it("steers mid-stream: the partial answer stays, marked, and the turn continues", async () => {
    workspace = createAgentWorkspace();
    const slow = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");
    const { session, engine, events } = await startScriptedSession(workspace, [
      { text: slow, delayMs: 10 },
      { text: "Switching to French.", expect: { lastMessageIncludes: "In French please" } },
    ]);
    let deltas = 0;
    session.subscribe((event) => {
      if (event.type === "text-delta" && ++deltas === 3) void session.steer("In French please");
    });
    const result = await session.submit("Tell me about the project.");
    expect(result.reason).toBe("completed");
    const [system, user, partial, steer, answer] = session.transcript;
    expect(system?.role).toBe("system");
    expect(user).toEqual({ role: "user", content: "Tell me about the project." });
    expect(partial).toMatchObject({ role: "assistant", interrupted: true });
    expect(partial?.content.startsWith("word0 word1 word2")).toBe(true);
    expect(partial?.content.length).toBeLessThan(slow.length);
    expect(steer).toEqual({ role: "user", content: "In French please" });
    expect(answer).toEqual({ role: "assistant", content: "Switching to French." });
    expect(eventsOfType(events, "interrupted")[0]).toMatchObject({
      reason: "steer",
      partialText: partial?.content,
    });
    expect(eventsOfType(events, "user-message")[0]).toMatchObject({
      via: "steer",
      text: "In French please",
    });
    // The same turn and the same cache key: the engine can reuse what it already evaluated.
    expect(eventsOfType(events, "turn-started")).toHaveLength(1);
    expect(engine.requests[1]?.sessionKey).toBe(engine.requests[0]?.sessionKey);
    await session.close();
  });

  it("interrupt stops a running command at once and ends the turn", async () => {
    workspace = createAgentWorkspace();
    const { session, events } = await startScriptedSession(workspace, [
      {
        text: "Running it.",
        toolCalls: [{ name: "run_command", arguments: { command: "sleep 10" } }],
      },
    ]);
    session.subscribe((event) => {
      if (event.type === "tool-call") setTimeout(() => session.interrupt(), 100);
    });
    const result = await session.submit("Please run sleep 10");
    expect(result.reason).toBe("interrupted");
    expect(eventsOfType(events, "tool-result")[0]?.output).toContain("[interrupted by the user]");
    expect(session.transcript.at(-1)).toMatchObject({
      role: "tool",
      content: expect.stringContaining("interrupted") as unknown,
    });
    expect(eventsOfType(events, "turn-finished")[0]?.reason).toBe("interrupted");
    await session.close();
  }, 5000);

  it("times a command from its start: the wait for the user's approval is not in durationMs", async () => {
    workspace = createAgentWorkspace();
    let answeredAt = 0;
    let resultAt = 0;
    const { session, events } = await startScriptedSession(
      workspace,
      [
        {
          text: "Creating it.",
          toolCalls: [{ name: "run_command", arguments: { command: "touch made.txt" } }],
        },
        { text: "Done." },
      ],
      {
        commandApproval: {
          autoApprove: false,
          // The user takes their time to answer; the command itself is quick.
          ask: async () => {
            await new Promise((resolve) => setTimeout(resolve, 300));
            answeredAt = performance.now();
            return true;
          },
        },
      },
    );
    session.subscribe((event) => {
      if (event.type === "tool-result") resultAt = performance.now();
    });
    await session.submit("Make the file, whatever it takes.");
    const [result] = eventsOfType(events, "tool-result");
    expect(result?.output).toContain("[exit code 0]");
    expect(answeredAt).toBeGreaterThan(0);
    // Measured inside the span from the answer to the result, so never more than that span.
    expect(result?.durationMs).toBeLessThanOrEqual(resultAt - answeredAt);
    await session.close();
  });

  it("queues a message until the current step ends", async () => {
    workspace = createAgentWorkspace();
    workspace.write("a.txt", "alpha\n");
    const { session, events } = await startScriptedSession(workspace, [
      {
        text: "Reading a.",
        toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }],
        delayMs: 5,
      },
      { text: "Noted, b too.", expect: { lastMessageIncludes: "also look at b" } },
    ]);
    session.subscribe((event) => {
      if (event.type === "text-delta" && event.text === "Reading")
        void session.queue("also look at b");
    });
    const result = await session.submit("Look at a.");
    expect(result.reason).toBe("completed");
    expect(session.transcript.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "user",
      "assistant",
    ]);
    expect(eventsOfType(events, "interrupted")).toHaveLength(0);
    expect(eventsOfType(events, "user-message")[0]).toMatchObject({ via: "queue" });
    await session.close();
  });

  it("undo restores the file and tells the model on the next message", async () => {
    workspace = createAgentWorkspace();
    workspace.write("src/greet.ts", original);
    const { session, events, engine } = await startScriptedSession(workspace, [
      ...readThenPatch,
      {
        text: "Understood.",
        expect: { lastMessageIncludes: "The user undid your last edit (src/greet.ts)" },
      },
    ]);
    await session.submit("Change the greeting to hi.");
    expect(workspace.read("src/greet.ts")).not.toBe(original);
    const undone = await session.undo();
    expect(workspace.read("src/greet.ts")).toBe(original);
    expect(undone.files.map((file) => file.path)).toEqual(["src/greet.ts"]);
    expect(eventsOfType(events, "edit-undone")[0]?.files[0]?.unifiedDiff).toContain(
      '+export const greeting = "hello";',
    );
    await expect(session.undo()).rejects.toThrow("There is no edit to undo");
    expect((await session.submit("ok")).reason).toBe("completed");
    expect(engine.turnsPlayed).toBe(4);
    await session.close();
  });

  it("resumes from the session log and continues with the earlier messages", async () => {
    workspace = createAgentWorkspace();
    workspace.write("src/greet.ts", original);
    const first = await startScriptedSession(workspace, readThenPatch);
    await first.session.submit("Change the greeting to hi.");
    await first.session.close();
    const logPath = first.session.logPath;

    const second = await startScriptedSession(
      workspace,
      [
        {
          text: "It says hi now.",
          expect: {
            anyMessageIncludes: "Change the greeting",
            lastMessageIncludes: "What changed?",
          },
        },
      ],
      { resumeFrom: logPath },
    );
    expect(second.session.id).toBe(first.session.id);
    expect(second.session.transcript).toEqual(first.session.transcript);
    expect((await second.session.submit("What changed?")).reason).toBe("completed");
    expect(second.engine.requests[0]?.messages.length).toBe(first.session.transcript.length + 1);
    // The undo history came back from the log too.
    await second.session.undo();
    expect(workspace.read("src/greet.ts")).toBe(original);
    await second.session.close();

    const loaded = await readSession(logPath);
    expect(loaded.summary).toMatchObject({
      turns: 2,
      firstInstruction: "Change the greeting to hi.",
    });
    expect(loaded.undoEntries).toHaveLength(0);
    const lines = readFileSync(logPath, "utf8").trim().split("\n");
    expect(lines.every((line) => JSON.parse(line) !== null)).toBe(true);
  });

  it("times decode apart from prefill: each step's tokens after its first, first to last token", async () => {
    workspace = createAgentWorkspace();
    workspace.write("src/greet.ts", original);
    const { session, events } = await startScriptedSession(workspace, [
      {
        text: "Reading the file now.",
        delayMs: 5,
        toolCalls: [{ name: "read_file", arguments: { path: "src/greet.ts" } }],
      },
      { text: "It greets with hello.", delayMs: 5 },
    ]);
    await session.submit("What does it say?");
    const [finished] = eventsOfType(events, "turn-finished");
    expect(finished?.steps).toBe(2);
    const usage = finished?.usage;
    const timings = finished?.timings;
    // Two steps, so two first tokens that belong to prefill, not decode.
    expect(timings?.decodeTokens).toBe((usage?.outputTokens ?? 0) - 2);
    expect(timings?.decodeMs).toBeGreaterThan(0);
    expect(timings?.decodeMs).toBeLessThanOrEqual(timings?.modelMs ?? 0);
  });
});
