import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../../../src/protocol/agent/index.ts";
import { parsePageMessage } from "./ask-messages.ts";
import { emptyAskTranscript, foldAskEvent, type TranscriptEntry } from "./ask-transcript.ts";

/** The entries the page is sent for each event, in order. */
function entriesOf(events: SessionEvent[]): TranscriptEntry[][] {
  let transcript = emptyAskTranscript;
  return events.map((event) => {
    const folded = foldAskEvent(transcript, event);
    transcript = folded.transcript;
    return folded.entries;
  });
}

describe("foldAskEvent", () => {
  it("sends each piece of an answer as it streams, and the tool calls and approvals between", () => {
    expect(
      entriesOf([
        // The page echoes the question itself (the sent text also carries the editor context).
        { type: "turn-started", turnId: "t", text: "q" },
        { type: "text-delta", turnId: "t", text: "<b>hi" },
        { type: "text-delta", turnId: "t", text: "</b>" },
        {
          type: "tool-call",
          turnId: "t",
          callId: "c1",
          name: "run_command",
          summary: "run_command rm -rf x",
          arguments: "{}",
        },
        { type: "approval-requested", approvalId: "a1", command: "rm -rf x", cwd: "/w" },
        { type: "user-message", turnId: "t", text: "and then?", via: "steer" },
      ]),
    ).toEqual([
      [],
      [{ kind: "assistant-delta", text: "<b>hi" }],
      [{ kind: "assistant-delta", text: "</b>" }],
      [{ kind: "tool", text: "run_command rm -rf x" }],
      [{ kind: "approval", approvalId: "a1", text: "Run `rm -rf x`?" }],
      [{ kind: "user", text: "and then?" }],
    ]);
  });

  it("tells the page when a turn runs, so it can offer Stop, and says stopped once", () => {
    const interrupted: SessionEvent = {
      type: "interrupted",
      turnId: "t",
      reason: "interrupt",
      partialText: "",
      discardedQueue: ["queued"],
    };
    expect(
      entriesOf([
        { type: "status-changed", status: "running" },
        { type: "text-delta", turnId: "t", text: "Half" },
        interrupted,
        { type: "status-changed", status: "idle" },
        interrupted,
      ]),
    ).toEqual([
      [{ kind: "busy", busy: true }],
      [{ kind: "assistant-delta", text: "Half" }],
      [{ kind: "status", text: "stopped" }],
      [{ kind: "busy", busy: false }],
      [{ kind: "status", text: "stopped" }],
    ]);
  });

  it("says what the other surfaces say when a turn ends early or fails", () => {
    expect(
      entriesOf([
        {
          type: "error",
          error: {
            type: "error",
            code: "internal_error",
            message: "The model stopped.",
            retryable: false,
          },
        },
        { type: "model-changed", model: "local" },
      ]),
    ).toEqual([
      [{ kind: "error", text: "The model stopped." }],
      [{ kind: "status", text: "model: local" }],
    ]);
  });
});

describe("parsePageMessage", () => {
  it("accepts the page's messages and drops malformed ones", () => {
    expect(parsePageMessage({ type: "ask", askId: 1, text: "hi" })).toEqual({
      type: "ask",
      askId: 1,
      text: "hi",
      files: [],
    });
    expect(parsePageMessage({ type: "ask", askId: 2, text: "hi", files: ["src/a.ts", 3] })).toEqual(
      { type: "ask", askId: 2, text: "hi", files: ["src/a.ts"] },
    );
    expect(parsePageMessage({ type: "ask", askId: 1, text: "  " })).toBeUndefined();
    expect(parsePageMessage({ type: "insert", text: "code" })).toEqual({
      type: "insert",
      text: "code",
    });
    expect(parsePageMessage({ type: "approve" })).toBeUndefined();
    expect(parsePageMessage("stop")).toBeUndefined();
    expect(parsePageMessage({ type: "eval", text: "x" })).toBeUndefined();
  });
});
