import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../../src/protocol/agent/index.ts";
import { composeMessage } from "./attachments.ts";
import { applyLiveStats, emptyLiveStats } from "./live-stats.ts";
import {
  applySessionEvent,
  emptyTranscript,
  latestUndoableEdit,
  undoStepsTo,
  type TranscriptState,
} from "./transcript.ts";

const fold = (events: SessionEvent[], start: TranscriptState = emptyTranscript): TranscriptState =>
  events.reduce((state, event, index) => applySessionEvent(state, event, index + 1), start);

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

describe("transcript", () => {
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
    const after = applySessionEvent(before, { type: "text-delta", turnId: "t1", text: "b" }, 3);
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

  it("shows a sent message's files and uploads apart from what was typed", () => {
    const message = composeMessage(
      "Review these",
      ["src/a.ts", ".gitignore"],
      [{ name: "notes.txt", text: "remember\n", bytes: 9 }],
    );
    const state = fold([{ type: "turn-started", turnId: "t1", text: message }]);
    expect(state.items).toEqual([
      {
        kind: "user",
        id: "user-1",
        text: "Review these",
        files: ["src/a.ts", ".gitignore"],
        uploads: [{ name: "notes.txt", text: "remember\n" }],
      },
    ]);
  });

  it("tracks which edits undo reaches and marks undone ones", () => {
    let state = fold([edit("u1", "a.ts"), edit("u2", "b.ts")]);
    expect(latestUndoableEdit(state.items)).toBe("u2");
    expect(undoStepsTo(state.items, "u1")).toBe(2);
    expect(undoStepsTo(state.items, "u2")).toBe(1);
    state = applySessionEvent(
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
    const state = applySessionEvent(
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
  it("is a notice in the transcript and moves the context meter", () => {
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
    expect(applyLiveStats(emptyLiveStats, event, 0)).toMatchObject({
      contextUsedTokens: 2_500,
      contextWindowTokens: 32_768,
    });
  });
});

describe("live stats", () => {
  it("measures time to first token and a live rate, then takes the engine's numbers", () => {
    let stats = applyLiveStats(
      emptyLiveStats,
      { type: "turn-started", turnId: "t", text: "x" },
      1000,
    );
    stats = applyLiveStats(stats, { type: "text-delta", turnId: "t", text: "a" }, 1250);
    for (let index = 1; index <= 100; index += 1) {
      stats = applyLiveStats(
        stats,
        { type: "text-delta", turnId: "t", text: "a" },
        1250 + index * 10,
      );
    }
    expect(stats.timeToFirstTokenMs).toBe(250);
    expect(stats.tokensPerSecond).toBeCloseTo(100);
    stats = applyLiveStats(
      stats,
      {
        type: "budget",
        turnId: "t",
        usedTokens: 1200,
        limitTokens: 3000,
        windowTokens: 4096,
        truncatedToolOutputs: 0,
        compacted: false,
      },
      2300,
    );
    stats = applyLiveStats(
      stats,
      {
        type: "turn-finished",
        turnId: "t",
        reason: "completed",
        steps: 1,
        usage: { inputTokens: 1200, cachedInputTokens: 800, outputTokens: 300 },
        timings: {
          totalMs: 1300,
          modelMs: 1000,
          toolMs: 0,
          timeToFirstTokenMs: 240,
          decodeMs: 750,
          decodeTokens: 299,
        },
      },
      2400,
    );
    // 299 tokens decoded in 750 ms: the turn's prefill (in its 1,000 model ms) is not counted.
    expect(stats.tokensPerSecond).toBeCloseTo(398.67, 1);
    expect(stats).toMatchObject({
      timeToFirstTokenMs: 240,
      contextUsedTokens: 1200,
      contextWindowTokens: 4096,
      cachedTokens: 800,
    });
  });
});
