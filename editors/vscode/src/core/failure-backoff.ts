// Exponential backoff for background requests (ghost text) while the server fails: after a
// failure the next request waits 0.5 s, then 1 s, 2 s … up to 30 s; a success, a new key or new
// settings start over. Without it a refused key cost a 401 per keystroke.

export interface FailureBackoffOptions {
  initialMs?: number;
  maximumMs?: number;
}

export class FailureBackoff {
  private readonly initialMs: number;
  private readonly maximumMs: number;
  private failures = 0;
  private notBefore = 0;

  constructor(options: FailureBackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 500;
    this.maximumMs = options.maximumMs ?? 30_000;
  }

  /** Milliseconds to wait before the next request may go out (0: go). */
  remainingMs(now: number): number {
    return Math.max(0, this.notBefore - now);
  }

  failed(now: number): void {
    const delay = Math.min(this.maximumMs, this.initialMs * 2 ** this.failures);
    this.failures += 1;
    this.notBefore = now + delay;
  }

  reset(): void {
    this.failures = 0;
    this.notBefore = 0;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }
}
