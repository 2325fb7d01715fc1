import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../agent/index.ts";
import {
  approvalOutcome,
  approvalQuestion,
  foldSessionEvent,
  foldSessionEventWithChanges,
} from "./fold-session-events.ts";
import { emptyTranscript, type TranscriptState } from "./transcript-items.ts";
import { latestUndoableEdit, undoStepsTo } from "./transcript-queries.ts";

const fold = (events: SessionEvent[], start: TranscriptState = emptyTranscript): TranscriptState =>
  events.reduce((state, event, index) => foldSessionEvent(state, event, index + 1), start);

const edit = (undoEntryId: string, path: string): SessionEvent => ({
  type: "edit-applied",
  turnId: "t1",
  callId: `call-${undoEntryId}`,
  path,
  kind: "update",
  unifiedDiff: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`,
  linesAdded: 1,
  linesRemoved: 1,
  undoEntryId,
});

describe("foldSessionEvent: what the transcript shows", () => {
  it("joins text deltas into one streaming reply and closes it at a tool call", () => {
    const state = fold([
      { type: "turn-started", turnId: "t1", text: "Fix it" },
      { type: "status-changed", status: "running" },
      { type: "text-delta", turnId: "t1", text: "Looking" },
      { type: "text-delta", turnId: "t1", text: " now." },
      {
        type: "tool-call",
        turnId: "t1",
        callId: "c1",
        name: "read_file",
        arguments: "{}",
        summary: "read_file a.ts",
      },
      {
        type: "tool-result",
        turnId: "t1",
        callId: "c1",
        name: "read_file",
        output: "1: a",
        isError: false,
        durationMs: 3,
      },
      { type: "text-delta", turnId: "t1", text: "Done." },
    ]);
    expect(state.status).toBe("running");
    expect(state.activeTurnId).toBe("t1");
    expect(state.items).toEqual([
      { kind: "user", id: "user-1", text: "Fix it" },
      {
        kind: "assistant",
        id: "assistant-3",
        text: "Looking now.",
        streaming: false,
        interrupted: false,
      },
      {
        kind: "tool",
        id: "tool-c1",
        callId: "c1",
        name: "read_file",
        summary: "read_file a.ts",
        arguments: "{}",
        output: "1: a",
        isError: false,
        durationMs: 3,
      },
      { kind: "assistant", id: "assistant-7", text: "Done.", streaming: true, interrupted: false },
    ]);
  });

  it("replaces only the changed item, so finished rows keep their identity", () => {
    const before = fold([
      { type: "turn-started", turnId: "t1", text: "Hi" },
      { type: "text-delta", turnId: "t1", text: "a" },
    ]);
    const after = foldSessionEvent(before, { type: "text-delta", turnId: "t1", text: "b" }, 3);
    expect(after.items[0]).toBe(before.items[0]);
    expect(after.items[1]).not.toBe(before.items[1]);
  });

  it("marks an interrupted reply, shows steers, approvals and their decisions", () => {
    const state = fold([
      { type: "turn-started", turnId: "t1", text: "Go" },
      { type: "text-delta", turnId: "t1", text: "Part" },
      {
        type: "interrupted",
        turnId: "t1",
        reason: "steer",
        partialText: "Part",
        discardedQueue: [],
      },
      { type: "user-message", turnId: "t1", text: "no, keep the old name", via: "steer" },
      { type: "approval-requested", approvalId: "ap1", command: "npm test", cwd: "/w" },
      { type: "approval-resolved", approvalId: "ap1", decision: "approve" },
    ]);
    expect(state.items.map((item) => item.kind)).toEqual([
      "user",
      "assistant",
      "notice",
      "user",
      "approval",
    ]);
    expect(state.items[1]).toMatchObject({ interrupted: true, streaming: false });
    expect(state.items[3]).toMatchObject({ via: "steer", text: "no, keep the old name" });
    expect(state.items[4]).toMatchObject({ command: "npm test", decision: "approve" });
  });

  it("puts the approval card above the command it asks about, before its output", () => {
    const state = fold([
      { type: "turn-started", turnId: "t1", text: "Go" },
      {
        type: "tool-call",
        turnId: "t1",
        callId: "c1",
        name: "run_command",
        arguments: '{"command":"npm test"}',
        summary: "run_command npm test",
      },
      { type: "approval-requested", approvalId: "ap1", command: "npm test", cwd: "/w" },
      { type: "approval-resolved", approvalId: "ap1", decision: "approve" },
      {
        type: "tool-result",
        turnId: "t1",
        callId: "c1",
        name: "run_command",
        output: "ok\n[exit code 0]",
        isError: false,
        durationMs: 40,
      },
    ]);
    expect(state.items.map((item) => item.kind)).toEqual(["user", "approval", "tool"]);
    expect(state.items[2]).toMatchObject({ output: "ok\n[exit code 0]" });
  });

  it("words an MCP tool's approval as a call whose 'always' covers the tool, not one command", () => {
    const state = fold([
      { type: "turn-started", turnId: "t1", text: "Go" },
      {
        type: "approval-requested",
        approvalId: "ap1",
        command: 'everything__echo {"message":"hi"}',
        cwd: "/w",
        mcpTool: { server: "everything", tool: "echo" },
      },
      { type: "approval-resolved", approvalId: "ap1", decision: "always" },
    ]);
    const approval = state.items[1];
    expect(approval).toMatchObject({ kind: "approval", mcpTool: { server: "everything" } });
    if (approval?.kind !== "approval") throw new Error("no approval item");
    expect(approvalQuestion(approval)).toBe(
      'Call echo on MCP server everything: `everything__echo {"message":"hi"}`?',
    );
    expect(approvalOutcome("always", approval.mcpTool)).toBe(
      "Tool call approved, and every call of echo (MCP server everything) from now on in this session.",
    );
    expect(approvalOutcome("always")).toBe(
      "Command approved, and this exact command from now on in this session.",
    );
    expect(approvalQuestion({ command: "npm test" })).toBe("Run `npm test`?");
  });

  it("marks an interrupt once: on the cut reply, or as a notice when none was streaming", () => {
    const interrupted: SessionEvent = {
      type: "interrupted",
      turnId: "t1",
      reason: "interrupt",
      partialText: "Part",
      discardedQueue: [],
    };
    const midReply = fold([
      { type: "turn-started", turnId: "t1", text: "Go" },
      { type: "text-delta", turnId: "t1", text: "Part" },
      interrupted,
      {
        type: "turn-finished",
        turnId: "t1",
        reason: "interrupted",
        steps: 1,
        usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 },
        timings: {
          totalMs: 1,
          modelMs: 1,
          toolMs: 0,
          timeToFirstTokenMs: 1,
          decodeMs: 0,
          decodeTokens: 0,
        },
      },
    ]);
    expect(midReply.items.map((item) => item.kind)).toEqual(["user", "assistant"]);
    expect(midReply.items[1]).toMatchObject({ interrupted: true });
    const midCommand = fold([
      { type: "turn-started", turnId: "t1", text: "Go" },
      {
        type: "tool-call",
        turnId: "t1",
        callId: "c1",
        name: "run_command",
        arguments: "{}",
        summary: "run_command sleep 9",
      },
      interrupted,
    ]);
    expect(midCommand.items.filter((item) => item.kind === "notice")).toEqual([
      { kind: "notice", id: "notice-3", text: "Interrupted.", tone: "info", about: "interrupted" },
    ]);
  });

  it("tracks which edits undo reaches and marks undone ones", () => {
    let state = fold([edit("u1", "a.ts"), edit("u2", "b.ts")]);
    expect(latestUndoableEdit(state.items)).toBe("u2");
    expect(undoStepsTo(state.items, "u1")).toBe(2);
    expect(undoStepsTo(state.items, "u2")).toBe(1);
    state = foldSessionEvent(
      state,
      {
        type: "edit-undone",
        undoEntryId: "u2",
        files: [{ path: "b.ts", action: "restored", unifiedDiff: "" }],
      },
      9,
    );
    expect(state.items[1]).toMatchObject({ undone: true });
    expect(latestUndoableEdit(state.items)).toBe("u1");
    expect(undoStepsTo(state.items, "u1")).toBe(1);
  });

  it("ignores event types it does not know", () => {
    const state = foldSessionEvent(
      emptyTranscript,
      { type: "something-new" } as unknown as SessionEvent,
      1,
    );
    expect(state).toBe(emptyTranscript);
  });
});

describe("session start", () => {
  it("warns when commands run without a sandbox, and says nothing when they do", () => {
    const started = (kind: "bubblewrap" | "none", description: string): SessionEvent => ({
      type: "session-started",
      sessionId: "s",
      logPath: "/home/sessions/s.jsonl",
      cwd: "/work",
      resumed: false,
      commandSandbox: { kind, description },
    });
    expect(fold([started("bubblewrap", "bubblewrap (writes: workspace only)")]).items).toEqual([]);
    expect(fold([started("none", "none — bwrap not found")]).items).toEqual([
      {
        kind: "notice",
        id: "notice-1",
        text: "Command sandbox: none — bwrap not found",
        tone: "error",
        about: "sandbox",
      },
    ]);
  });
});

describe("a compaction", () => {
  it("is a notice in the transcript", () => {
    const event: SessionEvent = {
      type: "context-compacted",
      tokensBefore: 12_000,
      tokensAfter: 2_500,
      windowTokens: 32_768,
    };
    expect(fold([event]).items).toEqual([
      {
        kind: "notice",
        id: "notice-1",
        text: "Compacted older turns: 12k → 2.5k tokens.",
        tone: "info",
        about: "compacted",
      },
    ]);
  });
});

const toolCall = (callId: string): SessionEvent => ({
  type: "tool-call",
  turnId: "t1",
  callId,
  name: "run_command",
  summary: `run_command ${callId}`,
  arguments: "{}",
});

describe("foldSessionEvent", () => {
  it("joins deltas into one answer and closes it when anything else is added", () => {
    const state = fold([
      { type: "turn-started", turnId: "t1", text: "Fix it" },
      { type: "text-delta", turnId: "t1", text: "Look" },
      { type: "text-delta", turnId: "t1", text: "ing." },
      toolCall("c1"),
      { type: "text-delta", turnId: "t1", text: "Done." },
    ]);
    expect(state.items.map((item) => [item.kind, "text" in item ? item.text : item.id])).toEqual([
      ["user", "Fix it"],
      ["assistant", "Looking."],
      ["tool", "tool-c1"],
      ["assistant", "Done."],
    ]);
    expect(state.items[1]).toMatchObject({ streaming: false });
    expect(state.activeTurnId).toBe("t1");
  });

  it("says a turn stopped at its max steps in words, and a missing sandbox once", () => {
    const started: SessionEvent = {
      type: "session-started",
      sessionId: "s1",
      cwd: "/w",
      commandSandbox: { kind: "none", description: "none — bwrap not found" },
    } as SessionEvent;
    const state = fold([
      started,
      started,
      {
        type: "turn-finished",
        turnId: "t1",
        reason: "max_steps",
        steps: 8,
        usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 },
        timings: {
          totalMs: 1,
          modelMs: 1,
          toolMs: 0,
          timeToFirstTokenMs: 1,
          decodeMs: 1,
          decodeTokens: 1,
        },
      },
    ]);
    expect(state.items.map((item) => item.kind === "notice" && [item.about, item.text])).toEqual([
      ["sandbox", "Command sandbox: none — bwrap not found"],
      ["turn-ended", "The turn stopped after 8 model calls (its max steps)."],
    ]);
  });
});

describe("foldSessionEventWithChanges", () => {
  it("names what an event added or changed, and leaves the state as it was for nothing", () => {
    const streaming = fold([{ type: "text-delta", turnId: "t1", text: "Half" }]);
    const { state, changes } = foldSessionEventWithChanges(
      streaming,
      {
        type: "interrupted",
        turnId: "t1",
        reason: "interrupt",
        partialText: "Half",
        discardedQueue: ["q"],
      },
      2,
    );
    expect(changes).toEqual([
      { type: "changed", previous: streaming.items[0], item: state.items[0] },
      { type: "added", item: state.items[1] },
    ]);
    expect(state.items[0]).toMatchObject({ streaming: false, interrupted: true });
    expect(state.items[1]).toMatchObject({
      about: "interrupted",
      text: "Dropped 1 queued message(s).",
    });
    const budget = foldSessionEventWithChanges(
      state,
      { type: "budget", turnId: "t1", usedTokens: 10, windowTokens: 100 } as SessionEvent,
      3,
    );
    expect(budget.state).toBe(state);
    expect(budget.changes).toEqual([]);
  });
});
