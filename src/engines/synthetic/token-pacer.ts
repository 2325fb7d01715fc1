// When each of a synthetic engine's streams may emit its next token: one timer for all of them,
// armed for the earliest due token, instead of a timer (and its promise machinery) per stream per
// token. Streams due in the same millisecond wake in the same tick, as a batch's would.

interface Waiter {
  dueAt: number;
  wake: () => void;
}

/** Node's timers count whole milliseconds: a token due within one is released with the others. */
const RESOLUTION_MS = 1;

export class TokenPacer {
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = Number.POSITIVE_INFINITY;
  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerDueAt = Number.POSITIVE_INFINITY;
    this.wakeDue();
  };

  /** Resolves at `dueAt` (a performance.now() time), or at once when `signal` aborts. */
  wait(dueAt: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        dueAt,
        wake: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        // An idle pacer holds no timer (it would keep the process alive for nothing).
        if (this.waiters.length === 0) this.disarm();
        waiter.wake();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      this.arm(dueAt);
    });
  }

  private wakeDue(): void {
    const now = performance.now();
    const due: Waiter[] = [];
    const waiting: Waiter[] = [];
    let nextDueAt = Number.POSITIVE_INFINITY;
    for (const waiter of this.waiters) {
      if (waiter.dueAt <= now + RESOLUTION_MS) due.push(waiter);
      else {
        waiting.push(waiter);
        nextDueAt = Math.min(nextDueAt, waiter.dueAt);
      }
    }
    this.waiters = waiting;
    if (nextDueAt !== Number.POSITIVE_INFINITY) this.arm(nextDueAt);
    for (const waiter of due) waiter.wake();
  }

  /** Makes sure the timer fires no later than `dueAt`. */
  private arm(dueAt: number): void {
    if (dueAt >= this.timerDueAt) return;
    this.disarm();
    this.timerDueAt = dueAt;
    this.timer = setTimeout(this.onTimer, Math.max(RESOLUTION_MS, dueAt - performance.now()));
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = Number.POSITIVE_INFINITY;
  }
}
