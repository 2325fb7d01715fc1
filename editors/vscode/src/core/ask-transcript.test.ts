import { describe, expect, it } from "vitest";
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
    expect(transcriptEntryFor({ type: "status-changed", status: "idle" })).toBeUndefined();
  });
});
