// Per-API-key cap on responses generating at once, across WebSocket and HTTP alike.
import { WireError } from "./wire-error.ts";

const ANONYMOUS = "\u0000anonymous";

export class ConcurrencyLimiter {
  private readonly active = new Map<string, number>();

  constructor(private readonly maxPerKey: number) {}

  /** Takes a slot for `apiKey` or throws rate_limited; call the returned release exactly once. */
  acquire(apiKey: string | undefined): () => void {
    const key = apiKey ?? ANONYMOUS;
    const count = this.active.get(key) ?? 0;
    if (count >= this.maxPerKey) {
      throw new WireError(
        "rate_limited",
        `This API key already has ${count} responses generating (max_concurrency_per_key = ${this.maxPerKey}); wait for one to finish.`,
        { retryable: true, retryAfterMs: 1000 },
      );
    }
    this.active.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const remaining = (this.active.get(key) ?? 1) - 1;
      if (remaining <= 0) this.active.delete(key);
      else this.active.set(key, remaining);
    };
  }
}
