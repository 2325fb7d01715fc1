// The breaker's state machine on a stepped clock: closed → open after N failures in the window,
// open → half-open after the open period, one probe at a time, closed on its success.
import { describe, expect, it } from "vitest";
import { CircuitBreaker, type BreakerState } from "./circuit-breaker.ts";

function breakerOnClock() {
  let now = 0;
  const changes: Array<[BreakerState, BreakerState]> = [];
  const breaker = new CircuitBreaker(
    { failures: 3, windowMs: 1_000, openMs: 5_000 },
    () => now,
    (state, previous) => changes.push([previous, state]),
  );
  return { breaker, changes, advance: (ms: number) => (now += ms) };
}

describe("CircuitBreaker", () => {
  it("opens after N failures within the window, not when they are spread out", () => {
    const { breaker, advance } = breakerOnClock();
    breaker.failure();
    advance(600);
    breaker.failure();
    advance(600); // the first failure has left the window
    breaker.failure();
    expect(breaker.state).toBe("closed");
    breaker.failure();
    expect(breaker.state).toBe("open");
    expect(breaker.tryAcquire()).toBe(false);
    expect(breaker.retryInMs).toBe(5_000);
  });

  it("a success in between clears the count", () => {
    const { breaker } = breakerOnClock();
    breaker.failure();
    breaker.failure();
    breaker.success();
    breaker.failure();
    breaker.failure();
    expect(breaker.state).toBe("closed");
  });

  it("half-open lets one probe through; its success closes the circuit", () => {
    const { breaker, advance, changes } = breakerOnClock();
    for (let index = 0; index < 3; index += 1) breaker.failure();
    advance(4_999);
    expect(breaker.tryAcquire()).toBe(false);
    advance(1);
    expect(breaker.state).toBe("half-open");
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false); // a second request waits for the probe's verdict
    breaker.success();
    expect(breaker.state).toBe("closed");
    expect(breaker.tryAcquire()).toBe(true);
    expect(changes).toEqual([
      ["closed", "open"],
      ["open", "half-open"],
      ["half-open", "closed"],
    ]);
  });

  it("a failed probe opens it again for a full period", () => {
    const { breaker, advance } = breakerOnClock();
    for (let index = 0; index < 3; index += 1) breaker.failure();
    advance(5_000);
    expect(breaker.tryAcquire()).toBe(true);
    breaker.failure();
    expect(breaker.state).toBe("open");
    advance(4_000);
    expect(breaker.tryAcquire()).toBe(false);
    advance(1_000);
    expect(breaker.tryAcquire()).toBe(true);
  });

  it("a probe released without a verdict lets the next request probe", () => {
    const { breaker, advance } = breakerOnClock();
    for (let index = 0; index < 3; index += 1) breaker.failure();
    advance(5_000);
    expect(breaker.tryAcquire()).toBe(true);
    breaker.release();
    expect(breaker.state).toBe("half-open");
    expect(breaker.tryAcquire()).toBe(true);
  });
});
