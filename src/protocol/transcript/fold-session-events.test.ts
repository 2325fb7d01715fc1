import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../agent/index.ts";
import { foldSessionEvent, foldSessionEventWithChanges } from "./fold-session-events.ts";
import { emptyTranscript, type TranscriptState } from "./transcript-items.ts";

const fold = (events: SessionEvent[], start: TranscriptState = emptyTranscript): TranscriptState =>
  events.reduce((state, event, index) => foldSessionEvent(state, event, index + 1), start);

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

  it("puts an approval above the command waiting for it, and records its answer", () => {
    const state = fold([
      toolCall("c1"),
      { type: "approval-requested", approvalId: "a1", command: "rm x", cwd: "/w" },
      { type: "approval-resolved", approvalId: "a1", decision: "deny" },
    ]);
    expect(state.items.map((item) => item.kind)).toEqual(["approval", "tool"]);
    expect(state.items[0]).toMatchObject({ decision: "deny" });
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
