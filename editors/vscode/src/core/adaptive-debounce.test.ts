import { describe, expect, it } from "vitest";
import { AdaptiveDebounce } from "./adaptive-debounce.ts";

describe("AdaptiveDebounce", () => {
  it("starts at the minimum and follows the server's recent latency within its bounds", () => {
    const debounce = new AdaptiveDebounce({
      minimumMs: 25,
      maximumMs: 350,
      latencyShare: 0.5,
      windowSize: 3,
    });
    expect(debounce.delayMs()).toBe(25);
    debounce.recordLatency(200);
    expect(debounce.delayMs()).toBe(100);
    for (let index = 0; index < 3; index++) debounce.recordLatency(5_000);
    expect(debounce.delayMs()).toBe(350);
    for (let index = 0; index < 3; index++) debounce.recordLatency(10);
    expect(debounce.delayMs()).toBe(25);
  });

  it("is not slowed by one slow answer among fast ones (a cold start, a busy moment)", () => {
    const debounce = new AdaptiveDebounce({ minimumMs: 0, maximumMs: 350, latencyShare: 0.5 });
    debounce.recordLatency(40);
    debounce.recordLatency(600);
    expect(debounce.serverLatencyMs).toBe(40);
    expect(debounce.delayMs()).toBe(20);
  });

  it("pauses longer inside a burst of typing than after a pause", () => {
    const debounce = new AdaptiveDebounce({
      minimumMs: 25,
      maximumMs: 350,
      burstGapMs: 250,
      burstPauseMs: 75,
    });
    debounce.recordLatency(10);
    expect(debounce.delayMs()).toBe(25);
    expect(debounce.delayMs(400)).toBe(25);
    expect(debounce.delayMs(90)).toBe(75);
    // A slow server's own pause is longer still.
    debounce.recordLatency(1_000);
    for (let index = 0; index < 5; index++) debounce.recordLatency(400);
    expect(debounce.delayMs(90)).toBe(200);
  });

  it("ignores samples that are not latencies", () => {
    const debounce = new AdaptiveDebounce();
    debounce.recordLatency(Number.NaN);
    debounce.recordLatency(-3);
    expect(debounce.serverLatencyMs).toBeUndefined();
  });

  it("resolves false at once when aborted during the wait, true when it runs out", async () => {
    const debounce = new AdaptiveDebounce({ minimumMs: 10_000, maximumMs: 10_000 });
    const controller = new AbortController();
    const waiting = debounce.wait(controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBe(false);
    const short = new AdaptiveDebounce({ minimumMs: 1, maximumMs: 1 });
    await expect(short.wait(new AbortController().signal)).resolves.toBe(true);
  });

  it("waits only what is left after the time already waited since the keystroke", async () => {
    const debounce = new AdaptiveDebounce({ minimumMs: 60_000, maximumMs: 60_000 });
    await expect(debounce.wait(new AbortController().signal, 60_000)).resolves.toBe(true);
  });
});
