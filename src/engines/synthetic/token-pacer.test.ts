// One timer paces every stream: waits resolve in due order, never before they are due (within the
// timers' millisecond), and an abort ends a wait at once without disturbing the others.
import { describe, expect, it } from "vitest";
import { TokenPacer } from "./token-pacer.ts";

describe("TokenPacer", () => {
  it("wakes waiters in due order, none more than a millisecond early", async () => {
    const pacer = new TokenPacer();
    const start = performance.now();
    const woken: Array<{ index: number; dueAt: number; at: number }> = [];
    const dues = [30, 5, 20, 5, 12];
    await Promise.all(
      dues.map(async (offset, index) => {
        const dueAt = start + offset;
        await pacer.wait(dueAt, undefined);
        woken.push({ index, dueAt, at: performance.now() });
      }),
    );
    expect(woken.map((entry) => dues[entry.index])).toEqual([5, 5, 12, 20, 30]);
    for (const entry of woken) expect(entry.at).toBeGreaterThanOrEqual(entry.dueAt - 1);
  });

  it("ends an aborted wait at once and still wakes the rest", async () => {
    const pacer = new TokenPacer();
    const controller = new AbortController();
    const start = performance.now();
    const order: string[] = [];
    const long = pacer.wait(start + 60_000, controller.signal).then(() => order.push("aborted"));
    const short = pacer.wait(start + 10, undefined).then(() => order.push("due"));
    controller.abort();
    await Promise.all([long, short]);
    expect(order).toEqual(["aborted", "due"]);
    await pacer.wait(start, AbortSignal.abort());
  });
});
