// Rate-limits the operator log's repeated warnings: the first line of a cause is written at once,
// the same cause again within the interval is only counted, and one summary line with the count
// follows at the interval's end (a 20 s Redis outage wrote ~1,500 identical lines per replica).

/** How long one cause's repeats are folded into one summary line, unless [serve]
 * log_repeat_interval_seconds says otherwise. */
export const REPEAT_INTERVAL_MS = 10_000;

interface CauseWindow {
  endsAt: number;
  suppressed: number;
  lastLine: string;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class RepeatedWarnings {
  private readonly windows = new Map<string, CauseWindow>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly intervalMs = REPEAT_INTERVAL_MS,
  ) {}

  /** Writes `line` unless `cause` was written within the interval; then counts it. */
  warn(cause: string, line: string): void {
    const now = Date.now();
    const window = this.windows.get(cause);
    if (window === undefined || now >= window.endsAt) {
      if (window?.timer !== undefined) clearTimeout(window.timer);
      this.write(line);
      this.windows.set(cause, {
        endsAt: now + this.intervalMs,
        suppressed: 0,
        lastLine: line,
        timer: undefined,
      });
      return;
    }
    window.suppressed += 1;
    window.lastLine = line;
    window.timer ??= this.scheduleSummary(cause, window);
  }

  /** Writes what is still counted (shutdown) and stops the timers. */
  flush(): void {
    for (const [cause, window] of this.windows) {
      if (window.timer !== undefined) clearTimeout(window.timer);
      if (window.suppressed > 0) this.write(summaryOf(window, this.intervalMs));
      this.windows.delete(cause);
    }
  }

  private scheduleSummary(cause: string, window: CauseWindow): ReturnType<typeof setTimeout> {
    const timer = setTimeout(
      () => {
        this.write(summaryOf(window, this.intervalMs));
        // The summary opens a new interval: a cause that goes on repeating writes one line per
        // interval, not one per occurrence once the first interval is over.
        this.windows.set(cause, {
          endsAt: Date.now() + this.intervalMs,
          suppressed: 0,
          lastLine: window.lastLine,
          timer: undefined,
        });
      },
      Math.max(0, window.endsAt - Date.now()),
    );
    timer.unref();
    return timer;
  }
}

function summaryOf(window: CauseWindow, intervalMs: number): string {
  return `${window.lastLine} (repeated ${window.suppressed} more times in ${Math.round(intervalMs / 1000)} s)`;
}
