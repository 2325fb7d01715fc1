// The pause between a keystroke and a completion request, adapted to the latency measured:
// a fast server gets a short pause (ghost text keeps up with typing), a slow one a longer pause
// (fewer requests that would be cancelled by the next keystroke anyway).

export interface AdaptiveDebounceOptions {
  minimumMs?: number;
  maximumMs?: number;
  /** The pause as a share of the smoothed latency. */
  latencyShare?: number;
  /** Weight of the newest latency sample in the moving average. */
  smoothing?: number;
}

export class AdaptiveDebounce {
  private readonly minimumMs: number;
  private readonly maximumMs: number;
  private readonly latencyShare: number;
  private readonly smoothing: number;
  private averageLatencyMs: number | undefined;

  constructor(options: AdaptiveDebounceOptions = {}) {
    // Cody waits 75-125 ms and Continue 350 ms whatever the model does; 25 ms is about the gap
    // between keystrokes of a fast typist, so waiting less would request on every key.
    this.minimumMs = options.minimumMs ?? 25;
    this.maximumMs = options.maximumMs ?? 350;
    this.latencyShare = options.latencyShare ?? 0.5;
    this.smoothing = options.smoothing ?? 0.3;
  }

  /** Records how long a completion took from request to first token. */
  recordLatency(latencyMs: number): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) return;
    this.averageLatencyMs =
      this.averageLatencyMs === undefined
        ? latencyMs
        : this.averageLatencyMs + this.smoothing * (latencyMs - this.averageLatencyMs);
  }

  get smoothedLatencyMs(): number | undefined {
    return this.averageLatencyMs;
  }

  /** The pause to wait now. Before any sample, the minimum: the first request learns the latency. */
  delayMs(): number {
    if (this.averageLatencyMs === undefined) return this.minimumMs;
    const wanted = this.averageLatencyMs * this.latencyShare;
    return Math.round(Math.min(this.maximumMs, Math.max(this.minimumMs, wanted)));
  }

  /**
   * Waits what is left of the current pause after `alreadyWaitedMs` (the time since the keystroke);
   * resolves false (without waiting further) when the signal aborts.
   */
  wait(signal: AbortSignal, alreadyWaitedMs = 0): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    const remainingMs = this.delayMs() - Math.max(0, alreadyWaitedMs);
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
