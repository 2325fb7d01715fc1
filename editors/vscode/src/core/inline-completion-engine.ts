// The inline-completion pipeline without VS Code: cache, reuse of the completion in flight,
// adaptive debounce, one request at a time (a new keystroke aborts an unrelated one), stream
// filters, latency measurement, backoff while the server fails, and a start at the keystroke
// (`prefetch`) that the editor's later question joins. The extension's provider only converts
// positions and items.
import { AdaptiveDebounce } from "./adaptive-debounce.ts";
import { FailureBackoff } from "./failure-backoff.ts";
import {
  buildCompletionRequest,
  completionAllowedAt,
  type CompletionContext,
  type CompletionRequest,
  type CompletionWindowOptions,
} from "./completion-request.ts";
import { judgeReuse } from "./completion-reuse.ts";
import { streamCompletion } from "./completions-client.ts";
import { LruCache } from "./lru-cache.ts";
import type { SparkServer } from "./spark-http.ts";
import { filterCompletion } from "./stream-filters.ts";

export type CompletionSource = "network" | "cache" | "reuse";

export interface CompletionOutcome {
  text: string;
  source: CompletionSource;
  /** Request to first token, for network completions. */
  latencyMs?: number;
  /** The model that answered (network completions). */
  model?: string;
}

export interface InlineCompletionEngineOptions {
  server: () => SparkServer;
  model?: () => string | undefined;
  debounce?: AdaptiveDebounce;
  backoff?: FailureBackoff;
  cacheSize?: number;
  window?: CompletionWindowOptions;
  now?: () => number;
  onOutcome?: (outcome: CompletionOutcome) => void;
  onError?: (error: unknown) => void;
}

/** What to show: `text` replaces the `replaceLength` characters after the cursor. */
export interface GhostText {
  text: string;
  /** Closers the editor auto-inserted after the cursor that `text` holds itself. */
  replaceLength: number;
}

interface Flight {
  request: CompletionRequest;
  text: string;
  finished: boolean;
  /** The stream ended one way or another (finished, failed or aborted). */
  settled: boolean;
  controller: AbortController;
  done: Promise<void>;
}

export class InlineCompletionEngine {
  private readonly cache: LruCache<string, string>;
  private readonly debounce: AdaptiveDebounce;
  private readonly backoff: FailureBackoff;
  private readonly now: () => number;
  private flight: Flight | undefined;
  /** The pipeline started at a keystroke for its cursor, which the editor's question joins. */
  private started:
    | { key: string; controller: AbortController; result: Promise<GhostText | undefined> }
    | undefined;
  requestsSent = 0;
  requestsCancelled = 0;

  constructor(private readonly options: InlineCompletionEngineOptions) {
    this.cache = new LruCache(options.cacheSize ?? 200);
    this.debounce = options.debounce ?? new AdaptiveDebounce();
    this.backoff = options.backoff ?? new FailureBackoff();
    this.now = options.now ?? (() => performance.now());
  }

  /** The ghost text's text alone (see `suggest`). */
  async complete(context: CompletionContext, signal: AbortSignal): Promise<string | undefined> {
    return (await this.suggest(context, signal))?.text;
  }

  /**
   * Starts the pipeline for the cursor a keystroke left, before the editor asks: VS Code asks
   * about 50 ms after the change reaches the extension (its own debounce, which an extension
   * cannot shorten), and by then the request is under way. `suggest` for the same cursor joins it.
   */
  prefetch(context: CompletionContext): void {
    if (!completionAllowedAt(context)) return;
    const request = buildCompletionRequest(context, this.options.window);
    const key = cacheKey(request);
    if (this.started?.key === key) return;
    this.started?.controller.abort();
    const controller = new AbortController();
    // Its failures reach onError inside; whoever joins it gets no answer.
    const result = this.run(request, context, controller.signal).catch(() => undefined);
    this.started = { key, controller, result };
  }

  /** The ghost text for the cursor, or undefined (nothing to show, or the signal aborted). */
  async suggest(context: CompletionContext, signal: AbortSignal): Promise<GhostText | undefined> {
    if (!completionAllowedAt(context)) return undefined;
    const request = buildCompletionRequest(context, this.options.window);
    const key = cacheKey(request);
    const started = this.started;
    if (started?.key === key && !started.controller.signal.aborted) {
      const result = await Promise.race([started.result, abortedPromise(signal)]);
      return signal.aborted ? undefined : (result ?? undefined);
    }
    // The cursor moved on since that keystroke: what it started waits no longer.
    started?.controller.abort();
    this.started = undefined;
    return this.run(request, context, signal);
  }

  private async run(
    request: CompletionRequest,
    context: CompletionContext,
    signal: AbortSignal,
  ): Promise<GhostText | undefined> {
    const key = cacheKey(request);
    const cached = this.cache.get(key);
    if (cached !== undefined) return atCursor(this.report({ text: cached, source: "cache" }));

    const reused = await this.reuseFlight(request, signal);
    if (reused !== undefined) {
      const text = this.report({ text: reused.remaining, source: "reuse" });
      return text === undefined ? undefined : { text, replaceLength: reused.replaceLength };
    }
    if (signal.aborted) return undefined;

    // While the server fails, keystrokes do not each repeat the failing request.
    if (this.backoff.remainingMs(this.now()) > 0) return undefined;
    const waited = context.changedAt === undefined ? 0 : this.now() - context.changedAt;
    if (!(await this.debounce.wait(signal, waited, context.typingGapMs))) return undefined;
    const flight = this.startFlight(request);
    await Promise.race([flight.done, abortedPromise(signal)]);
    if (signal.aborted || !flight.finished) return undefined;
    if (flight.text === "") return undefined;
    this.cache.set(key, flight.text);
    return { text: flight.text, replaceLength: 0 };
  }

  /** Aborts whatever is in flight (the extension calls this on dispose). */
  cancel(): void {
    this.started?.controller.abort();
    this.started = undefined;
    this.abortFlight();
  }

  /** The next keystroke may ask at once: new settings, a new key, a server just started. */
  resetBackoff(): void {
    this.backoff.reset();
  }

  private async reuseFlight(
    request: CompletionRequest,
    signal: AbortSignal,
  ): Promise<{ remaining: string; replaceLength: number } | undefined> {
    for (;;) {
      const flight = this.flight;
      if (flight === undefined) return undefined;
      if (flight.settled && !flight.finished) {
        this.flight = undefined;
        return undefined;
      }
      const verdict = judgeReuse(
        { ...flight.request, text: flight.text },
        request,
        flight.finished,
      );
      // A completion still streaming is offered whole: VS Code takes one answer per question.
      if (verdict.kind === "reuse" && flight.finished) return verdict;
      if (verdict.kind === "unrelated") {
        this.abortFlight();
        return undefined;
      }
      // Typed past what has streamed so far, or the rest is still streaming.
      await Promise.race([flight.done, abortedPromise(signal), pause(10)]);
      if (signal.aborted) return undefined;
    }
  }

  private startFlight(request: CompletionRequest): Flight {
    this.abortFlight();
    const controller = new AbortController();
    const flight: Flight = {
      request,
      text: "",
      finished: false,
      settled: false,
      controller,
      done: Promise.resolve(),
    };
    flight.done = this.runFlight(flight);
    this.flight = flight;
    this.requestsSent++;
    return flight;
  }

  private async runFlight(flight: Flight): Promise<void> {
    const started = this.now();
    let latencyMs: number | undefined;
    let model: string | undefined;
    let raw = "";
    try {
      const stream = streamCompletion(this.options.server(), flight.request, {
        model: this.options.model?.(),
        signal: flight.controller.signal,
      });
      for await (const delta of stream) {
        if (latencyMs === undefined) {
          latencyMs = this.now() - started;
          this.debounce.recordLatency(latencyMs);
        }
        model ??= delta.model;
        raw += delta.text;
        const filtered = filterCompletion(raw, flight.request);
        flight.text = filtered.text;
        if (filtered.stopped) break;
      }
      if (flight.request.multiline) flight.text = flight.text.replace(/\s+$/, "");
      flight.finished = true;
      this.backoff.reset();
      this.report({
        text: flight.text,
        source: "network",
        latencyMs: latencyMs ?? this.now() - started,
        ...(model === undefined ? {} : { model }),
      });
    } catch (error) {
      if (!flight.controller.signal.aborted) {
        this.backoff.failed(this.now());
        this.options.onError?.(error);
      }
    } finally {
      if (!flight.finished) flight.text = "";
      flight.settled = true;
    }
  }

  private abortFlight(): void {
    const flight = this.flight;
    if (flight === undefined) return;
    this.flight = undefined;
    if (!flight.finished) {
      this.requestsCancelled++;
      flight.controller.abort();
    }
  }

  private report(outcome: CompletionOutcome): string | undefined {
    this.options.onOutcome?.(outcome);
    return outcome.text === "" ? undefined : outcome.text;
  }
}

function atCursor(text: string | undefined): GhostText | undefined {
  return text === undefined ? undefined : { text, replaceLength: 0 };
}

function cacheKey(request: CompletionRequest): string {
  return `${request.documentId}\u0000${request.prefix.slice(-2000)}\u0000${request.suffix.slice(0, 400)}`;
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
