import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../protocol/agent/session-events.ts";
import { initialSessionViewState, reduceSessionView } from "./session-view-state.ts";
import { fold, timings, usage } from "./session-view-test-support.ts";
import { LONGEST_LIVE_LINE } from "./answer-lines.ts";

describe("reduceSessionView", () => {
  it("opens with a header naming the workspace when attached", () => {
    const state = reduceSessionView(initialSessionViewState("s1"), {
      type: "attached",
      session: { sessionId: "s1", cwd: "/repo", model: "m", live: true, status: "idle" },
      how: "resumed",
    });
    expect(state.finished).toEqual([
      expect.objectContaining({
        kind: "session-header",
        sessionId: "s1",
        cwd: "/repo",
        model: "m",
        how: "resumed",
      }),
    ]);
  });

  it("warns at session start when commands run without a sandbox, and only then", () => {
    const started = (kind: "bubblewrap" | "none", description: string): SessionEvent => ({
      type: "session-started",
      sessionId: "s1",
      logPath: "/s1.jsonl",
      cwd: "/repo",
      resumed: false,
      commandSandbox: { kind, description },
    });
    const description =
      "none — bwrap is not on PATH (install the bubblewrap package); commands outside the read-only list always ask";
    expect(fold([[started("none", description), 1]]).finished).toEqual([
      expect.objectContaining({
        kind: "notice",
        tone: "warning",
        text: `command sandbox: ${description}`,
      }),
    ]);
    const sandboxed = started("bubblewrap", "bubblewrap (writes: workspace only, network: off)");
    expect(fold([[sandboxed, 1]]).finished).toEqual([]);
  });

  it("streams an answer live, moves complete lines to the finished items, and measures", () => {
    const state = fold([
      [{ type: "turn-started", turnId: "t1", text: "hello" }, 1000],
      [{ type: "text-delta", turnId: "t1", text: "Line one\nLi" }, 1100],
      [{ type: "text-delta", turnId: "t1", text: "ne" }, 1150],
      [{ type: "text-delta", turnId: "t1", text: " two" }, 1200],
    ]);
    expect(state.finished.map((item) => item.kind)).toEqual(["user", "assistant"]);
    expect(state.finished[1]).toMatchObject({ text: "Line one", continued: false });
    expect(state.live).toMatchObject({ kind: "assistant", text: "Line two", continued: true });
    expect(state.metrics.timeToFirstTokenMs).toBe(100);
    expect(state.metrics.decodeTokensPerSecond).toBe(20); // 2 intervals in 100 ms
  });

  it.each([
    {
      // The engine's 49 decoded tokens in 98 ms, not 2 deltas over the 100 ms they spanned.
      case: "the engine's decode rate, however many tokens each delta carried",
      secondDeltaAt: 1200,
      outputTokens: 50,
      decode: { decodeMs: 98, decodeTokens: 49 },
    },
    {
      // A tool ran for 2 s between the two steps: the deltas span 2.1 s, the decode 76 ms.
      case: "the engine's decode rate, without the time tools ran between steps",
      secondDeltaAt: 3100,
      outputTokens: 40,
      decode: { decodeMs: 76, decodeTokens: 38 },
    },
    {
      case: "output tokens over the deltas' span when the engine reported no decode time",
      secondDeltaAt: 1200,
      outputTokens: 50,
      decode: { decodeMs: 0, decodeTokens: 0 },
    },
  ])("reports tokens/s when the turn ends: $case", ({ secondDeltaAt, outputTokens, decode }) => {
    const state = fold([
      [{ type: "turn-started", turnId: "t1", text: "hello" }, 1000],
      [{ type: "text-delta", turnId: "t1", text: "one two three" }, 1100],
      [{ type: "text-delta", turnId: "t1", text: " four five" }, secondDeltaAt],
      [
        {
          type: "turn-finished",
          turnId: "t1",
          reason: "completed",
          steps: 1,
          usage: { ...usage, outputTokens },
          timings: { ...timings, ...decode },
        },
        secondDeltaAt + 10,
      ],
    ]);
    expect(state.metrics.decodeTokensPerSecond).toBe(500);
  });

  it("keeps logical lines whole for the terminal to wrap and reflow (issue 27)", () => {
    const long = "word ".repeat(60).trim(); // 299 columns: wider than any terminal here
    const state = fold(
      [`${long.slice(0, 100)}`, `${long.slice(100)}\nnext`].map((text) => [
        { type: "text-delta", turnId: "t", text },
        0,
      ]),
    );
    expect(state.finished).toEqual([
      expect.objectContaining({ kind: "assistant", text: long, continued: false }),
    ]);
    expect(state.live).toMatchObject({ text: "next", continued: true });
  });

  it("moves an endless line to the finished items in pieces, so a frame stays cheap", () => {
    const state = fold([
      [{ type: "text-delta", turnId: "t", text: "alpha ".repeat(LONGEST_LIVE_LINE / 3) }, 0],
    ]);
    const pieces = state.finished.filter((item) => item.kind === "assistant");
    expect(pieces.length).toBeGreaterThanOrEqual(1);
    for (const piece of pieces) expect(piece.text.length).toBeLessThanOrEqual(LONGEST_LIVE_LINE);
    expect(pieces[1] ?? state.live).toMatchObject({ restOfLine: true });
    expect(state.live?.kind === "assistant" && state.live.text.length).toBeLessThan(
      LONGEST_LIVE_LINE,
    );
  });

  it("marks fences and the lines of a code block, with its language, across deltas", () => {
    const state = fold(
      ["Here:\n```t", "s\nconst a = 1;\n\n", "```\nafter\n~~~\nx\n~~~"].map((text) => [
        { type: "text-delta", turnId: "t", text },
        0,
      ]),
    );
    const lines = [...state.finished, ...(state.live === undefined ? [] : [state.live])];
    expect(
      lines.map((line) =>
        line.kind === "assistant"
          ? [line.text, line.block, line.code?.language, line.blankLinesBefore]
          : [],
      ),
    ).toEqual([
      ["Here:", "prose", undefined, undefined],
      ["```ts", "fence", "ts", undefined],
      ["const a = 1;", "code", "ts", undefined],
      // The blank line is a row above the next line shown, past the fence (which shows nothing):
      // Ink drops a frame's static output that is only an empty row.
      ["```", "fence", "ts", undefined],
      ["after", "prose", undefined, 1],
      ["~~~", "fence", "", undefined],
      ["x", "code", "", undefined],
      // The answer ends without a newline: the live closing fence is still a fence when it ends.
      ["~~~", "code", "", undefined],
    ]);
    const ended = reduceSessionView(state, {
      type: "session-event",
      event: { type: "turn-finished", turnId: "t", reason: "completed", steps: 1, usage, timings },
      at: 1,
    });
    expect(ended.finished.at(-1)).toMatchObject({ text: "~~~", block: "fence" });
  });

  it("strips escape sequences and control characters from what it shows (issue 27)", () => {
    const state = fold([
      [{ type: "turn-started", turnId: "t", text: "hi\u001b]0;owned\u0007" }, 0],
      [
        { type: "text-delta", turnId: "t", text: "red \u001b[31mtext\u001b[0m\u009b2J\tend\r\n" },
        1,
      ],
      [
        {
          type: "tool-call",
          turnId: "t",
          callId: "c",
          name: "run_command",
          arguments: "{}",
          summary: "run_command \u001b[2Jclear",
        },
        2,
      ],
    ]);
    expect(state.finished.map((item) => ("text" in item ? item.text : ""))).toEqual([
      "hi",
      "red text2J  end", // the C1 CSI is gone; what followed it is only text
    ]);
    expect(state.live).toMatchObject({ summary: "run_command clear" });
  });

  it("keeps interrupted output, marks it, and gives discarded queued messages back", () => {
    const state = fold([
      [{ type: "turn-started", turnId: "t1", text: "go" }, 0],
      [{ type: "text-delta", turnId: "t1", text: "partial" }, 1],
      [
        {
          type: "interrupted",
          turnId: "t1",
          reason: "interrupt",
          partialText: "partial",
          discardedQueue: ["later"],
        },
        2,
      ],
      [
        {
          type: "turn-finished",
          turnId: "t1",
          reason: "interrupted",
          steps: 1,
          usage,
          timings,
        },
        3,
      ],
    ]);
    expect(state.live).toBeUndefined();
    expect(state.finished.slice(1)).toMatchObject([
      { kind: "assistant", text: "partial", interrupted: true },
      { kind: "interrupted", reason: "interrupt" },
    ]);
    expect(state.returnedInput).toBe("later");
    expect(state.metrics.cachedPromptTokens).toBe(60);
  });
});

describe("the session view over the shared fold", () => {
  it("keeps the status an attach gave it until an event changes it", () => {
    const attached = reduceSessionView(initialSessionViewState("s1"), {
      type: "summary",
      status: "running",
      model: "local",
    });
    const streamed = reduceSessionView(attached, {
      type: "session-event",
      event: { type: "text-delta", turnId: "t1", text: "more" },
      at: 1,
    });
    expect([streamed.status, streamed.model]).toEqual(["running", "local"]);
    expect(streamed.transcript.items).toMatchObject([{ kind: "assistant", text: "more" }]);
    const idle = reduceSessionView(streamed, {
      type: "session-event",
      event: { type: "status-changed", status: "idle" },
      at: 2,
    });
    expect(idle.status).toBe("idle");
  });
});
