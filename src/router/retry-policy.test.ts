// Backoff by table: exponential steps with equal jitter, retry-after as a floor, the cap.
import { describe, expect, it } from "vitest";
import { retryDelayMs } from "./retry-policy.ts";

const settings = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };

describe("retryDelayMs", () => {
  it.each([
    // retry, retry-after, random, expected
    [1, undefined, 0, 50],
    [1, undefined, 1, 100],
    [2, undefined, 0.5, 150],
    [3, undefined, 1, 400],
    [6, undefined, 1, 1_000], // capped at maxDelayMs
    [1, 2_000, 0, 2_000], // retry-after is a floor
    [3, 10, 1, 400], // a short retry-after does not shorten the backoff
    [1, 5_000, 0, 5_000],
    [1, 5_001, 0, undefined], // over the cap: fall back instead of waiting
  ])("retry %i, retry-after %s, random %s → %s", (retry, retryAfter, random, expected) => {
    expect(retryDelayMs(settings, retry, retryAfter, () => random)).toBe(expected);
  });
});
