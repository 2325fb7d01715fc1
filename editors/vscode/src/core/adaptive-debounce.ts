// The pause between a keystroke and a completion request, adapted to the latency measured:
// a fast server gets a short pause (ghost text keeps up with typing), a slow one a longer pause
// (fewer requests that would be cancelled by the next keystroke anyway). The server's latency is
// the fastest of its recent answers: one slow answer (a cold start, a busy moment) must not slow
// the next keystrokes' ghost text, where a moving average made them wait for it to decay.
// Inside a burst of typing (the key before came moments ago) the pause is longer: another key is
// likely, and a request sent now would only be cancelled by it. A key after a pause, when the
// user stops to look, gets ghost text as soon as the server can give it.

export interface AdaptiveDebounceOptions {
  minimumMs?: number;
  maximumMs?: number;
  /** The pause as a share of the server's recent latency. */
  latencyShare?: number;
  /** How many recent latency samples are kept. */
  windowSize?: number;
  /** A key this soon after the one before it is inside a burst of typing. */
  burstGapMs?: number;
  /** The least pause, from the keystroke, inside a burst. */
  burstPauseMs?: number;
}

export class AdaptiveDebounce {
  private readonly minimumMs: number;
  private readonly maximumMs: number;
  private readonly latencyShare: number;
  private readonly windowSize: number;
  private readonly burstGapMs: number;
  private readonly burstPauseMs: number;
  private readonly recentMs: number[] = [];

  constructor(options: AdaptiveDebounceOptions = {}) {
    // Cody waits 75-125 ms and Continue 350 ms whatever the model does. Outside a burst (below)
    // no floor: a key after a pause waits only its share of the server's latency (half of a
    // 15 ms first token), where a 25 ms floor was the largest wait of ours before the request.
    this.minimumMs = options.minimumMs ?? 0;
    this.maximumMs = options.maximumMs ?? 350;
    this.latencyShare = options.latencyShare ?? 0.5;
    this.windowSize = options.windowSize ?? 5;
    // 250 ms between keys is 48 words a minute: slower than that, the user is not in a burst.
    this.burstGapMs = options.burstGapMs ?? 250;
    // VS Code's own 50 ms debounce plus 25 ms: in a burst, keys are let through no faster than
    // when requests waited for VS Code's question, so typing costs no more requests.
    this.burstPauseMs = options.burstPauseMs ?? 75;
  }

  /** Records how long a completion took from request to first token. */
  recordLatency(latencyMs: number): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) return;
    this.recentMs.push(latencyMs);
    if (this.recentMs.length > this.windowSize) this.recentMs.shift();
  }

  /** The fastest of the recent answers: what the server does when nothing gets in its way. */
  get serverLatencyMs(): number | undefined {
    return this.recentMs.length === 0 ? undefined : Math.min(...this.recentMs);
  }

  /**
   * The pause to wait now, from the keystroke; `typingGapMs` is the time between this key and the
   * one before it. Before any sample, the minimum: the first request learns the latency.
   */
  delayMs(typingGapMs?: number): number {
    const latencyMs = this.serverLatencyMs;
    const wanted = latencyMs === undefined ? this.minimumMs : latencyMs * this.latencyShare;
    const inBurst = typingGapMs !== undefined && typingGapMs < this.burstGapMs;
    const floor = inBurst ? Math.max(this.minimumMs, this.burstPauseMs) : this.minimumMs;
    return Math.round(Math.min(Math.max(this.maximumMs, floor), Math.max(floor, wanted)));
  }

  /**
   * Waits what is left of the current pause after `alreadyWaitedMs` (the time since the keystroke);
   * resolves false (without waiting further) when the signal aborts.
   */
  wait(signal: AbortSignal, alreadyWaitedMs = 0, typingGapMs?: number): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    const remainingMs = this.delayMs(typingGapMs) - Math.max(0, alreadyWaitedMs);
    if (remainingMs <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      }, remainingMs);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
