// Active health checking of one pool replica: a probe every `intervalMs` (the next is scheduled
// when the last one ends, so a slow replica is never probed twice at once); a failed probe takes the
// replica out of rotation before a user request finds it dead, a passing one brings it back.
import { SparkError } from "../protocol/spark-error.ts";

export interface HealthCheckSettings {
  /** Milliseconds between the end of one probe and the start of the next; 0 turns probing off. */
  intervalMs: number;
  /** A probe that has not answered by then failed. */
  timeoutMs: number;
}

/** Resolves when the replica is healthy; rejects (with the reason) when it is not. */
export type ReplicaProbe = (signal: AbortSignal) => Promise<void>;

export class ReplicaHealthCheck {
  /** False only after a failed probe, until one passes: a replica starts in rotation. */
  up = true;
  passed = 0;
  failed = 0;
  lastFailure: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly probe: ReplicaProbe,
    private readonly settings: HealthCheckSettings,
    private readonly onChange: (up: boolean) => void = () => {},
  ) {}

  /** Probes at once, then every interval, until `stop`. Timers are unref'd: they never hold the process. */
  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopping.abort();
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopping.signal.aborted) return;
    this.timer = setTimeout(() => void this.run(), delayMs).unref();
  }

  private async run(): Promise<void> {
    const signal = AbortSignal.any([
      this.stopping.signal,
      AbortSignal.timeout(this.settings.timeoutMs),
    ]);
    let failure: string | undefined;
    try {
      await this.probe(signal);
    } catch (error) {
      failure = signal.aborted
        ? `no answer within ${this.settings.timeoutMs} ms`
        : describeFailure(error);
    }
    if (this.stopping.signal.aborted) return;
    if (failure === undefined) this.passed += 1;
    else this.failed += 1;
    this.lastFailure = failure ?? this.lastFailure;
    const up = failure === undefined;
    if (up !== this.up) {
      this.up = up;
      this.onChange(up);
    }
    this.schedule(this.settings.intervalMs);
  }
}

/**
 * A probe that GETs `url` (e.g. `{base_url}/models`): any answer below 500 within the timeout
 * means the server is alive and serving; 5xx (a loading or overloaded server), a refused or reset
 * connection, or silence means it is not.
 */
export function httpProbe(url: string, headers: Record<string, string> = {}): ReplicaProbe {
  return async (signal) => {
    const response = await fetch(url, { headers, signal });
    // Read to the end so the keep-alive connection is reused by the next probe.
    await response.arrayBuffer();
    if (response.status >= 500)
      throw new SparkError("upstream_error", `GET ${url} answered ${response.status}.`, {
        retryable: true,
      });
  };
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, UND_ERR_SOCKET) is in its cause. */
function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === "string" ? `${message} (${cause.code})` : message;
}
