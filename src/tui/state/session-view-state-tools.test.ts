// The session view reducer for tool calls, approvals, the context meter, compaction and resumed
// history (split from session-view-state.test.ts, which covers streaming text).
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../protocol/agent/session-events.ts";
import { initialSessionViewState, reduceSessionView } from "./session-view-state.ts";
import { fold, timings, usage } from "./session-view-test-support.ts";

describe("reduceSessionView: tool calls, approvals, context and history", () => {
  it("finishes an approved command with its exit code, duration and last lines (issue 27)", () => {
    const state = fold([
      [
        {
          type: "tool-call",
          turnId: "t1",
          callId: "c1",
          name: "run_command",
          arguments: "{}",
          summary: "run_command npm test",
        },
        0,
      ],
      [{ type: "approval-requested", approvalId: "a1", command: "npm test", cwd: "/r" }, 1],
      [{ type: "approval-resolved", approvalId: "a1", decision: "approve" }, 2],
      [
        {
          type: "tool-result",
          turnId: "t1",
          callId: "c1",
          name: "run_command",
          output: "> test\n1\n2\n3\n4 passed\n[exit code 0]",
          isError: false,
          durationMs: 812,
        },
        3,
      ],
    ]);
    expect(state.live).toBeUndefined();
    expect(state.finished).toEqual([
      expect.objectContaining({ kind: "notice", text: "Command approved." }),
      expect.objectContaining({
        kind: "tool-call",
        status: "done",
        durationMs: 812,
        commandOutcome: {
          status: "exit code 0",
          tail: ["1", "2", "3", "4 passed"],
          lines: ["> test", "1", "2", "3", "4 passed"],
        },
      }),
    ]);
  });

  it("closes a tool call when its result or edit arrives, and tracks edits until undone", () => {
    const state = fold([
      [
        {
          type: "tool-call",
          turnId: "t1",
          callId: "c1",
          name: "read_file",
          arguments: "{}",
          summary: "read_file a.ts",
        },
        0,
      ],
      [
        {
          type: "tool-result",
          turnId: "t1",
          callId: "c1",
          name: "read_file",
          output: "x",
          isError: false,
          durationMs: 4,
        },
        1,
      ],
      [
        {
          type: "tool-call",
          turnId: "t1",
          callId: "c2",
          name: "edit",
          arguments: "{}",
          summary: "edit a.ts",
        },
        2,
      ],
      [
        {
          type: "edit-applied",
          turnId: "t1",
          callId: "c2",
          path: "a.ts",
          kind: "update",
          unifiedDiff: "-a\n+b",
          linesAdded: 1,
          linesRemoved: 1,
          undoEntryId: "u1",
        },
        3,
      ],
    ]);
    expect(state.finished).toMatchObject([
      { kind: "tool-call", summary: "read_file a.ts", status: "done", durationMs: 4 },
      { kind: "tool-call", summary: "edit a.ts", status: "done" },
      { kind: "edit", path: "a.ts", linesAdded: 1 },
    ]);
    expect(state.edits).toHaveLength(1);
    const undone = reduceSessionView(state, {
      type: "session-event",
      event: {
        type: "edit-undone",
        undoEntryId: "u1",
        files: [{ path: "a.ts", action: "restored", unifiedDiff: "" }],
      },
      at: 4,
    });
    expect(undone.edits).toEqual([]);
    expect(undone.finished.at(-1)).toMatchObject({ kind: "undo" });
    expect(state.finished).toHaveLength(3); // the earlier state is untouched
  });

  it("holds a pending approval until it is resolved, and follows status, model and budget", () => {
    const asked = fold([
      [{ type: "status-changed", status: "awaiting-approval" }, 0],
      [{ type: "approval-requested", approvalId: "a1", command: "npm test", cwd: "/r" }, 0],
      [
        {
          type: "budget",
          turnId: "t1",
          usedTokens: 1200,
          limitTokens: 3000,
          windowTokens: 4096,
          truncatedToolOutputs: 0,
          compacted: false,
        },
        0,
      ],
      [{ type: "model-changed", model: "fast" }, 0],
    ]);
    expect(asked.pendingApproval).toEqual({ approvalId: "a1", command: "npm test", cwd: "/r" });
    expect(asked.status).toBe("awaiting-approval");
    expect(asked.metrics).toMatchObject({ contextTokens: 1200, windowTokens: 4096 });
    expect(asked.model).toBe("fast");
    const resolved = reduceSessionView(asked, {
      type: "session-event",
      event: { type: "approval-resolved", approvalId: "a1", decision: "always" },
      at: 1,
    });
    expect(resolved.pendingApproval).toBeUndefined();
    expect(resolved.finished.at(-1)).toMatchObject({
      kind: "notice",
      text: "Command approved, and this exact command from now on in this session.",
    });
  });

  it("counts the last answer into the context when the turn ends (issue 27)", () => {
    const budget = (usedTokens: number): SessionEvent => ({
      type: "budget",
      turnId: "t",
      usedTokens,
      limitTokens: 900,
      windowTokens: 1000,
      truncatedToolOutputs: 0,
      compacted: false,
    });
    const finished = (steps: number, outputTokens: number): SessionEvent => ({
      type: "turn-finished",
      turnId: "t",
      reason: "completed",
      steps,
      usage: { ...usage, outputTokens },
      timings,
    });
    const oneStep = fold([
      [budget(300), 0],
      [{ type: "text-delta", turnId: "t", text: "a long answer" }, 1],
      [finished(1, 250), 2],
    ]);
    expect(oneStep.metrics.contextTokens).toBe(550);
    // Several steps: the last one's answer, about four characters a token.
    const twoSteps = fold([
      [budget(300), 0],
      [{ type: "text-delta", turnId: "t", text: "x".repeat(80) }, 1],
      [budget(400), 2],
      [{ type: "text-delta", turnId: "t", text: "y".repeat(400) }, 3],
      [finished(2, 250), 4],
    ]);
    expect(twoSteps.metrics.contextTokens).toBe(500);
  });

  it("shows a compaction as a notice and moves the context meter to the new size", () => {
    const state = fold([
      [
        {
          type: "context-compacted",
          tokensBefore: 12_000,
          tokensAfter: 2_500,
          windowTokens: 32_768,
        },
        0,
      ],
    ]);
    expect(state.metrics).toMatchObject({ contextTokens: 2_500, windowTokens: 32_768 });
    expect(state.finished.at(-1)).toMatchObject({
      kind: "notice",
      text: "Compacted older turns: 12k → 2.5k tokens.",
    });
  });

  it("folds a resumed session's logged events like live ones, closing what the log left open", () => {
    const state = reduceSessionView(initialSessionViewState("s1"), {
      type: "history-events",
      events: [
        {
          type: "session-started",
          sessionId: "s1",
          logPath: "/s1.jsonl",
          cwd: "/repo",
          resumed: false,
          commandSandbox: { kind: "none", description: "none" },
        },
        { type: "turn-started", turnId: "t", text: "go" },
        { type: "text-delta", turnId: "t", text: "Working." },
        {
          type: "interrupted",
          turnId: "t",
          reason: "interrupt",
          partialText: "Working.",
          discardedQueue: ["old queued text"],
        },
        { type: "turn-started", turnId: "t2", text: "again" },
        {
          type: "tool-call",
          turnId: "t2",
          callId: "c",
          name: "run_command",
          arguments: "{}",
          summary: "run_command make",
        },
      ],
    });
    expect(state.finished.map((item) => item.kind)).toEqual([
      "notice",
      "user",
      "assistant",
      "interrupted",
      "user",
      "tool-call",
    ]);
    expect(state.finished.at(-1)).toMatchObject({
      status: "failed",
      errorLine: "not finished: the session ended first",
    });
    expect(state.live).toBeUndefined();
    // An old interrupt's queue stays in the past; so do its timings.
    expect(state.returnedInput).toBeUndefined();
    expect(state.metrics.turnStartedAt).toBeNull();
  });

  it("shows errors, history and notices as finished items; ignores unknown event types", () => {
    const state = reduceSessionView(
      initialSessionViewState("s1"),
      { type: "history", items: [{ role: "user", text: "earlier" }] },
      {
        type: "session-event",
        event: {
          type: "error",
          error: { type: "error", code: "upstream_error", message: "boom", retryable: false },
        },
        at: 0,
      },
      { type: "session-event", event: { type: "future-thing" } as unknown as SessionEvent, at: 0 },
    );
    expect(state.finished).toMatchObject([
      { kind: "notice" },
      { kind: "history", role: "user", text: "earlier" },
      { kind: "error", message: "boom", code: "upstream_error" },
    ]);
  });
});
