import { describe, expect, it } from "vitest";
import { questionWithContext } from "./ask-context.ts";
import { questionOf, replayHistory } from "./ask-replay.ts";

describe("replaying an Ask session", () => {
  it("shows each question as typed, without the context it carried", () => {
    const sent = questionWithContext("Is this right?", {
      path: "sum.js",
      languageId: "javascript",
      selection: { startLine: 1, endLine: 3, text: "function add() {}" },
    });
    expect(questionOf(sent)).toBe("Is this right?");
    expect(questionOf("plain question")).toBe("plain question");
  });

  it("folds logged events into questions, replies and statuses in order", () => {
    const { entries } = replayHistory([
      { type: "session-started" },
      { type: "turn-started", turnId: "t1", text: "Why?\n\n(Active file: a.ts)" },
      { type: "text-delta", turnId: "t1", text: "Because." },
      { type: "turn-finished", turnId: "t1", reason: "completed" },
    ] as { type: string }[]);
    expect(entries).toEqual([
      { kind: "user", text: "Why?" },
      { kind: "assistant-delta", text: "Because." },
    ]);
  });
});
