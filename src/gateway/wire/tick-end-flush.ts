// Work held until the current tick ends: the first call in a tick schedules it, later ones in the
// same tick find it scheduled, so a burst of engine output leaves once, never later than the tick.
import type { GatewayClock } from "../gateway-clock.ts";

/** Returns `schedule`; `flush` then runs once at the tick's end, its time taken by `clock` (it
 * runs outside the caller's own timing). */
export function createTickEndFlush(flush: () => void, clock: GatewayClock | undefined): () => void {
  let scheduled = false;
  const flushAtTickEnd = (): void => {
    scheduled = false;
    const startedAt = performance.now();
    flush();
    clock?.addSince(startedAt);
  };
  return () => {
    if (scheduled) return;
    scheduled = true;
    // nextTick runs once the engine's burst (its microtasks included) is done, before any I/O.
    process.nextTick(flushAtTickEnd);
  };
}
