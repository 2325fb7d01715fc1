import { describe, expect, it } from "vitest";
import { AdaptiveDebounce } from "./adaptive-debounce.ts";

describe("AdaptiveDebounce", () => {
  it("starts at the minimum and follows the smoothed latency within its bounds", () => {
    const debounce = new AdaptiveDebounce({
      minimumMs: 25,
      maximumMs: 350,
      latencyShare: 0.5,
      smoothing: 0.5,
    });
    expect(debounce.delayMs()).toBe(25);
    debounce.recordLatency(200);
    expect(debounce.delayMs()).toBe(100);
    debounce.recordLatency(400);
    expect(debounce.smoothedLatencyMs).toBe(300);
    expect(debounce.delayMs()).toBe(150);
    for (let index = 0; index < 20; index++) debounce.recordLatency(5_000);
    expect(debounce.delayMs()).toBe(350);
    for (let index = 0; index < 40; index++) debounce.recordLatency(10);
    expect(debounce.delayMs()).toBe(25);
  });

  it("ignores samples that are not latencies", () => {
    const debounce = new AdaptiveDebounce();
    debounce.recordLatency(Number.NaN);
    debounce.recordLatency(-3);
    expect(debounce.smoothedLatencyMs).toBeUndefined();
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
