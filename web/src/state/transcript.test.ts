import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../../src/protocol/agent/index.ts";
import { composeMessage } from "./attachments.ts";
import { applyLiveStats, emptyLiveStats } from "./live-stats.ts";
import { applySessionEvent, emptyTranscript, type TranscriptState } from "./transcript.ts";

// The fold itself is tested beside it (src/protocol/transcript/fold-session-events.test.ts); here,
// what the page adds: a sent message read back into its parts, and the live stats.
const fold = (events: SessionEvent[], start: TranscriptState = emptyTranscript): TranscriptState =>
  events.reduce((state, event, index) => applySessionEvent(state, event, index + 1), start);

describe("the page's transcript", () => {
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
});

describe("a compaction", () => {
  it("moves the context meter", () => {
    const event: SessionEvent = {
      type: "context-compacted",
      tokensBefore: 12_000,
      tokensAfter: 2_500,
      windowTokens: 32_768,
    };
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
