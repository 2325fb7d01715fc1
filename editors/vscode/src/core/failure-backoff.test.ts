import { describe, expect, it } from "vitest";
import { FailureBackoff } from "./failure-backoff.ts";

describe("FailureBackoff", () => {
  it("doubles the wait after each failure up to its maximum and starts over on reset", () => {
    const backoff = new FailureBackoff({ initialMs: 100, maximumMs: 350 });
    expect(backoff.remainingMs(0)).toBe(0);
    backoff.failed(0);
    expect(backoff.remainingMs(0)).toBe(100);
    expect(backoff.remainingMs(60)).toBe(40);
    backoff.failed(100);
    expect(backoff.remainingMs(100)).toBe(200);
    backoff.failed(300);
    expect(backoff.remainingMs(300)).toBe(350);
    backoff.reset();
    expect(backoff.remainingMs(300)).toBe(0);
    expect(backoff.consecutiveFailures).toBe(0);
  });
});
