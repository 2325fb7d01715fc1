// Measures one stream's phases the same way for every engine, so timings compare across engines.
import type { Timings } from "./engine.ts";

export class StreamClock {
  private readonly startedAt = performance.now();
  private workStartedAt: number | undefined;
  private firstTokenAt: number | undefined;
  private lastTokenAt: number | undefined;
  private tokenCount = 0;
  private prefillWorkMs = 0;
  /** Which loop decoded, where the engine has several (reported with the timings). */
  decodeLoop: Timings["decodeLoop"];
  /** Where the tokens were sampled, asked when the timings are read (the native loop's jobs). */
  sampling: (() => Timings["sampling"]) | undefined;

  /** The request got its sequence/connection: queueing ends, prefill begins. */
  markWorkStarted(): void {
    this.workStartedAt ??= performance.now();
  }

  /**
   * Work done for the prompt before the request waited for a sequence (the embedded engine renders
   * it first, to choose the sequence holding its prefix): prefill, not queueing.
   */
  addPrefillWork(milliseconds: number): void {
    this.prefillWorkMs += milliseconds;
  }

  /** Call once per output token (or per delta when the engine cannot count tokens). */
  markToken(count = 1): void {
    const now = performance.now();
    this.workStartedAt ??= now;
    this.firstTokenAt ??= now;
    this.lastTokenAt = now;
    this.tokenCount += count;
  }

  get hasFirstToken(): boolean {
    return this.firstTokenAt !== undefined;
  }

  timings(outputTokens = this.tokenCount): Timings {
    const now = performance.now();
    const workStartedAt = this.workStartedAt ?? now;
    const prefillEnd = this.firstTokenAt ?? now;
    const decodeMs =
      this.firstTokenAt === undefined ? 0 : (this.lastTokenAt ?? now) - this.firstTokenAt;
    // The first token closes prefill, so decode speed counts the tokens after it.
    const decodeTokens = Math.max(0, outputTokens - 1);
    return {
      queueMs: round(Math.max(0, workStartedAt - this.startedAt - this.prefillWorkMs)),
      timeToFirstTokenMs:
        this.firstTokenAt === undefined ? null : round(this.firstTokenAt - this.startedAt),
      prefillMs: round(prefillEnd - workStartedAt + this.prefillWorkMs),
      decodeMs: round(decodeMs),
      decodeTokensPerSecond:
        decodeMs > 0 && decodeTokens > 0 ? round((decodeTokens * 1000) / decodeMs) : null,
      totalMs: round(now - this.startedAt),
      ...(this.decodeLoop === undefined ? {} : { decodeLoop: this.decodeLoop }),
      ...this.samplingTimings(),
    };
  }

  private samplingTimings(): Pick<Timings, "sampling"> {
    const sampling = this.sampling?.();
    return sampling === undefined ? {} : { sampling };
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
