// The shared store's circuit breaker: once Redis stops answering (down, or hung: a command times
// out), every call fails at once instead of each waiting for the command timeout, and one probe at
// a time checks whether it is back. A reply from Redis (even an error such as OOM) proves it
// answers and never opens the breaker.

/** While open, how often a probe asks whether the store answers again. */
const PROBE_INTERVAL_MS = 250;

export interface StoreBreakerOptions {
  /** Sends one cheap command (PING) past the breaker; resolves once the store answered. */
  probe: () => Promise<unknown>;
  /** Told when it opens (with why) and when it closes again. */
  onChange: (open: boolean, reason: string) => void;
  /** Whether an error came from the store itself (it answered) rather than from reaching it. */
  isReply: (error: unknown) => boolean;
}

export class StoreBreaker {
  private openSince: number | undefined;
  private probing = false;
  private timer: NodeJS.Timeout | undefined;
  /** Calls refused while open, for /metrics. */
  refused = 0;
  /** Times it opened, for /metrics. */
  opened = 0;

  constructor(private readonly options: StoreBreakerOptions) {}

  get isOpen(): boolean {
    return this.openSince !== undefined;
  }

  /** Runs `call` unless the breaker is open (then throws `refusal()` at once). */
  async run<T>(call: () => Promise<T>, refusal: () => Error): Promise<T> {
    if (this.isOpen) {
      this.refused += 1;
      throw refusal();
    }
    try {
      return await call();
    } catch (error) {
      if (!this.options.isReply(error)) this.open(error);
      throw error;
    }
  }

  /** The connection itself reported trouble (closed, refused): open without waiting for a call. */
  open(cause: unknown): void {
    if (this.isOpen) return;
    this.openSince = performance.now();
    this.opened += 1;
    this.options.onChange(true, cause instanceof Error ? cause.message : String(cause));
    this.timer = setInterval(() => this.probe(), PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private probe(): void {
    if (this.probing) return;
    this.probing = true;
    this.options.probe().then(
      () => {
        this.probing = false;
        if (!this.isOpen) return;
        this.openSince = undefined;
        this.stop();
        this.options.onChange(false, "answered a probe");
      },
      () => {
        this.probing = false;
      },
    );
  }
}
