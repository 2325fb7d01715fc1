// One upstream's circuit breaker: closed until `failures` failures land within `windowMs`, then
// open (requests skip it) for `openMs`, then half-open: one probe goes through; its success closes
// the circuit, its failure opens it again. Time comes from an injected clock so tests step it.

export type BreakerState = "closed" | "open" | "half-open";

export interface BreakerSettings {
  failures: number;
  windowMs: number;
  openMs: number;
}

export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = {
  failures: 5,
  windowMs: 30_000,
  openMs: 15_000,
};

export type BreakerListener = (state: BreakerState, previous: BreakerState) => void;

export class CircuitBreaker {
  private current: BreakerState = "closed";
  private failureTimes: number[] = [];
  private openedAt = 0;
  private probeInFlight = false;

  constructor(
    private readonly settings: BreakerSettings = DEFAULT_BREAKER_SETTINGS,
    private readonly now: () => number = () => performance.now(),
    private readonly onChange: BreakerListener = () => {},
  ) {}

  /** The state now, moving open → half-open once the open period has passed. */
  get state(): BreakerState {
    if (this.current === "open" && this.now() - this.openedAt >= this.settings.openMs)
      this.transition("half-open");
    return this.current;
  }

  /** Milliseconds until an open circuit lets a probe through (0 when not open). */
  get retryInMs(): number {
    return this.state === "open"
      ? Math.max(0, this.openedAt + this.settings.openMs - this.now())
      : 0;
  }

  /**
   * Whether a request may go to this upstream now. In half-open only one probe is let through at
   * a time; the caller must then report `success`, `failure` or `release` exactly once.
   */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === "closed") return true;
    if (state === "open" || this.probeInFlight) return false;
    this.probeInFlight = true;
    return true;
  }

  success(): void {
    this.probeInFlight = false;
    this.failureTimes = [];
    if (this.current !== "closed") this.transition("closed");
  }

  failure(): void {
    const now = this.now();
    if (this.current === "half-open") {
      this.probeInFlight = false;
      this.open(now);
      return;
    }
    if (this.current === "open") return;
    this.failureTimes = this.failureTimes.filter((time) => now - time < this.settings.windowMs);
    this.failureTimes.push(now);
    if (this.failureTimes.length >= this.settings.failures) this.open(now);
  }

  /** A request that ended with no verdict on the upstream (cancelled, a bad request). */
  release(): void {
    this.probeInFlight = false;
  }

  private open(now: number): void {
    this.openedAt = now;
    this.failureTimes = [];
    this.transition("open");
  }

  private transition(next: BreakerState): void {
    const previous = this.current;
    if (previous === next) return;
    this.current = next;
    this.onChange(next, previous);
  }
}
