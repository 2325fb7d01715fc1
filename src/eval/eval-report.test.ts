import { describe, expect, it } from "vitest";
import { median, summarizeModel, type EvalRun } from "./eval-report.ts";

function run(overrides: Partial<EvalRun>): EvalRun {
  return {
    model: "fast",
    task: "a",
    attempt: 1,
    outcome: "pass",
    durationMs: 1000,
    timeToFirstTokenMs: 100,
    modelMs: 500,
    inputTokens: 10,
    outputTokens: 50,
    decodeMs: 400,
    decodeTokens: 48,
    decodeTokensPerSecond: 120,
    steps: 2,
    turnReason: "completed",
    routes: [],
    ...overrides,
  };
}

describe("median", () => {
  it("takes the middle value, or the mean of the two middle ones", () => {
    expect(median([])).toBeNull();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe("summarizeModel", () => {
  it("counts passes per task, leaves timeouts out of the time median and interrupted runs out of everything", () => {
    const summary = summarizeModel("fast", [
      run({ task: "a", durationMs: 1000 }),
      run({ task: "a", outcome: "fail", durationMs: 3000, timeToFirstTokenMs: 300 }),
      run({
        task: "b",
        outcome: "timeout",
        durationMs: 60_000,
        timeToFirstTokenMs: null,
        outputTokens: 50,
        modelMs: 1500,
        decodeMs: 1200,
        decodeTokens: 104,
      }),
      run({
        task: "b",
        outcome: "error",
        turnReason: null,
        durationMs: 0,
        timeToFirstTokenMs: null,
        outputTokens: 0,
        modelMs: 0,
        decodeMs: 0,
        decodeTokens: 0,
        decodeTokensPerSecond: null,
      }),
      run({ task: "b", outcome: "interrupted", durationMs: 5 }),
      run({ model: "deep", task: "a" }),
    ]);
    expect(summary).toEqual({
      model: "fast",
      runs: 4,
      passed: 1,
      passRate: 0.25,
      medianTaskMs: 2000,
      medianTimeToFirstTokenMs: 200,
      // 200 tokens decoded after the first ones over 2 s of decoding; the 2.5 s of model time
      // (prefill included) does not count.
      decodeTokensPerSecond: 100,
      errors: 1,
      timeouts: 1,
      tasks: { a: { runs: 2, passed: 1 }, b: { runs: 2, passed: 0 } },
    });
  });

  it("has no rates for a model with no runs", () => {
    expect(summarizeModel("fast", [])).toMatchObject({
      runs: 0,
      passRate: null,
      medianTaskMs: null,
      decodeTokensPerSecond: null,
    });
  });
});
