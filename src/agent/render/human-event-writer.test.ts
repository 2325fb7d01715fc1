// What `spark exec` prints for people: streamed text, one line per tool call and result, diffs,
// and the closing summary on stderr.
import { describe, expect, it } from "vitest";
import { createHumanEventWriter } from "./human-event-writer.ts";

describe("createHumanEventWriter", () => {
  it("renders a turn as readable lines", () => {
    let stdout = "";
    let stderr = "";
    const write = createHumanEventWriter(
      { write: (text: string) => (stdout += text) },
      { write: (text: string) => (stderr += text) },
    );
    const turnId = "t";
    write({ type: "text-delta", turnId, text: "Reading" });
    write({ type: "text-delta", turnId, text: " it." });
    write({
      type: "tool-call",
      turnId,
      callId: "c",
      name: "read_file",
      arguments: "{}",
      summary: "read_file a.ts",
    });
    write({
      type: "tool-result",
      turnId,
      callId: "c",
      name: "read_file",
      output: "1\tx\n2\ty",
      isError: false,
      durationMs: 1,
    });
    write({
      type: "tool-call",
      turnId,
      callId: "d",
      name: "edit",
      arguments: "{}",
      summary: "edit a.ts",
    });
    write({
      type: "tool-result",
      turnId,
      callId: "d",
      name: "edit",
      output: "no match for oldText\nmore",
      isError: true,
      durationMs: 1,
    });
    write({
      type: "turn-finished",
      turnId,
      reason: "completed",
      steps: 2,
      usage: { inputTokens: 10, cachedInputTokens: 4, outputTokens: 3 },
      timings: {
        totalMs: 1500,
        modelMs: 1000,
        toolMs: 5,
        timeToFirstTokenMs: 20,
        decodeMs: 900,
        decodeTokens: 90,
      },
    });
    expect(stdout).toBe(
      "Reading it.\n  → read_file a.ts\n  ✓ 2 lines\n  → edit a.ts\n  ✗ no match for oldText\n",
    );
    expect(stderr).toBe(
      "[spark] completed · 2 steps · 1.5 s · 10 input tokens (4 cached), 3 output\n",
    );
  });
});
