import { describe, expect, it } from "vitest";
import { parsePageMessage } from "./ask-messages.ts";
import { transcriptEntryFor } from "./ask-transcript.ts";

describe("transcriptEntryFor", () => {
  it("maps the events the view shows and ignores the rest", () => {
    expect(transcriptEntryFor({ type: "text-delta", turnId: "t", text: "<b>hi</b>" })).toEqual({
      kind: "assistant-delta",
      text: "<b>hi</b>",
    });
    expect(
      transcriptEntryFor({
        type: "approval-requested",
        approvalId: "a1",
        command: "rm -rf x",
        cwd: "/w",
      }),
    ).toEqual({ kind: "approval", approvalId: "a1", text: "Run `rm -rf x`?" });
    // The page echoes the question itself (the sent text also carries the editor context).
    expect(transcriptEntryFor({ type: "turn-started", turnId: "t", text: "q" })).toBeUndefined();
  });

  it("tells the page when a turn runs, so it can offer Stop", () => {
    expect(transcriptEntryFor({ type: "status-changed", status: "running" })).toEqual({
      kind: "busy",
      busy: true,
    });
    expect(transcriptEntryFor({ type: "status-changed", status: "idle" })).toEqual({
      kind: "busy",
      busy: false,
    });
    expect(
      transcriptEntryFor({
        type: "interrupted",
        turnId: "t",
        reason: "interrupt",
        partialText: "",
        discardedQueue: [],
      }),
    ).toEqual({ kind: "status", text: "stopped" });
  });
});

describe("parsePageMessage", () => {
  it("accepts the page's messages and drops malformed ones", () => {
    expect(parsePageMessage({ type: "ask", askId: 1, text: "hi" })).toEqual({
      type: "ask",
      askId: 1,
      text: "hi",
    });
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
