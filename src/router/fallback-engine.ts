// An Engine over a fallback chain of upstreams: each upstream is tried (retried with backoff that
// honours `retry-after`) unless its circuit breaker is open, then the next; the whole request has
// one deadline. Output passes straight through, and once any was sent nothing is retried, so a
// client never sees an answer twice. What happened is reported in the timings' `routing`.
import { setTimeout as sleep } from "node:timers/promises";
import type {
  Engine,
  EngineEvent,
  EngineRequest,
  EngineStreamOptions,
  ModelInfo,
  RouteAttempt,
  RoutingTimings,
  Timings,
  Usage,
} from "../engines/engine.ts";
import { noTimings, noUsage } from "../engines/end-stream.ts";
import { SparkError } from "../protocol/spark-error.ts";
import type { CircuitBreaker } from "./circuit-breaker.ts";
import { retryDelayMs, type RetrySettings } from "./retry-policy.ts";
import type { RouterMetrics } from "./router-metrics.ts";

export interface Upstream {
  /** The configured model name: what metrics and timings call it. */
  name: string;
  engine: () => Promise<Engine>;
  breaker: CircuitBreaker;
}

export interface FallbackPolicy {
  retry: RetrySettings;
  deadlineMs: number;
  random?: () => number;
}

type AttemptResult =
  | { kind: "done"; usage: Usage | undefined; timings: Timings | undefined; finish: FinishEvent }
  | {
      kind: "failed";
      error: SparkError;
      outputSent: boolean;
      usage: Usage | undefined;
      timings: Timings | undefined;
    };

type FinishEvent = Extract<EngineEvent, { type: "finish" }>;

/** Errors that say the request itself is wrong: another upstream would refuse it too. */
const REQUEST_ERRORS = new Set(["invalid_request", "cancelled"]);

export class FallbackEngine implements Engine {
  readonly kind = "router";

  constructor(
    private readonly chain: readonly Upstream[],
    private readonly policy: FallbackPolicy,
    private readonly metrics: RouterMetrics,
  ) {}

  /**
   * Asks the upstream stream() would try first (the first whose breaker is not open): a request
   * error from it ends the chain there, so its refusal is the chain's. An engine that fails to
   * open is left for stream() to report.
   */
  async checkRequest(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): Promise<SparkError | undefined> {
    const first = this.chain.find((upstream) => upstream.breaker.state !== "open");
    if (first === undefined) return undefined;
    const engine = await first.engine().catch(() => undefined);
    return engine?.checkRequest?.(request, options);
  }

  async *stream(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): AsyncIterable<EngineEvent> {
    const startedAt = performance.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort("deadline"), this.policy.deadlineMs);
    const signal =
      options.signal === undefined
        ? deadline.signal
        : AbortSignal.any([options.signal, deadline.signal]);
    const routing: RoutingTimings = {
      model: this.chain[0]?.name ?? "",
      attempts: [],
      retries: 0,
      fallbacks: 0,
      backoffMs: 0,
      deadlineExceeded: false,
    };
    let lastError: SparkError | undefined;
    let last: { usage: Usage | undefined; timings: Timings | undefined } = {
      usage: undefined,
      timings: undefined,
    };
    try {
      for (const [position, upstream] of this.chain.entries()) {
        if (position > 0 && routing.attempts.length > 0) {
          routing.fallbacks += 1;
          this.metrics.countFallback(this.chain[position - 1]?.name ?? "", upstream.name);
        }
        for (let attempt = 1; attempt <= this.policy.retry.maxAttempts; attempt += 1) {
          if (!upstream.breaker.tryAcquire()) {
            routing.attempts.push({
              model: upstream.name,
              outcome: "skipped",
              code: "circuit_open",
              durationMs: 0,
            });
            this.metrics.countAttempt(upstream.name, "skipped");
            lastError ??= new SparkError(
              "upstream_error",
              `${upstream.name}: circuit open after repeated failures.`,
              { retryable: true },
            );
            break;
          }
          routing.model = upstream.name;
          const attemptStartedAt = performance.now();
          const result = yield* this.attempt(upstream, request, signal);
          const record: RouteAttempt = {
            model: upstream.name,
            outcome: "ok",
            durationMs: round(performance.now() - attemptStartedAt),
          };
          routing.attempts.push(record);
          if (result.kind === "done") {
            this.metrics.countAttempt(upstream.name, "ok");
            yield* this.end(result.usage, result.timings, routing, startedAt, result.finish);
            return;
          }
          const error =
            deadline.signal.aborted && options.signal?.aborted !== true
              ? this.deadlineError(routing, startedAt)
              : result.error;
          record.outcome = "error";
          record.code = error.code;
          this.metrics.countAttempt(upstream.name, "error");
          last = result;
          lastError = error;
          if (routing.deadlineExceeded || result.outputSent || REQUEST_ERRORS.has(error.code)) {
            // Output already reached the client, the client went away, or no upstream can help.
            yield* this.end(result.usage, result.timings, routing, startedAt, finishFor(error));
            return;
          }
          if (!error.retryable || attempt === this.policy.retry.maxAttempts) break;
          const wait = retryDelayMs(
            this.policy.retry,
            attempt,
            error.retryAfterMs,
            this.policy.random,
          );
          if (wait === undefined || performance.now() - startedAt + wait >= this.policy.deadlineMs)
            break;
          routing.retries += 1;
          routing.backoffMs += wait;
          this.metrics.countRetry(upstream.name);
          try {
            await sleep(wait, undefined, { signal });
          } catch {
            const stopped =
              options.signal?.aborted === true
                ? new SparkError("cancelled", "The request was cancelled.")
                : this.deadlineError(routing, startedAt);
            yield* this.end(last.usage, last.timings, routing, startedAt, finishFor(stopped));
            return;
          }
        }
      }
      const exhausted =
        lastError ??
        new SparkError("upstream_error", "No upstream in the route could serve the request.");
      yield* this.end(last.usage, last.timings, routing, startedAt, finishFor(exhausted));
    } finally {
      clearTimeout(timer);
    }
  }

  /** One try on one upstream: passes output through, holds usage and timings back until the end. */
  private async *attempt(
    upstream: Upstream,
    request: EngineRequest,
    signal: AbortSignal,
  ): AsyncGenerator<EngineEvent, AttemptResult> {
    let engine: Engine;
    try {
      engine = await upstream.engine();
    } catch (thrown) {
      // A model that cannot load is as unavailable as an upstream that refuses connections.
      upstream.breaker.failure();
      const error = SparkError.from(thrown, "model_load_failed");
      return { kind: "failed", error, outputSent: false, usage: undefined, timings: undefined };
    }
    let usage: Usage | undefined;
    let timings: Timings | undefined;
    let outputSent = false;
    let finish: FinishEvent | undefined;
    try {
      for await (const event of engine.stream(request, { signal })) {
        if (event.type === "usage") usage = event.usage;
        else if (event.type === "timings") timings = event.timings;
        else if (event.type === "finish") finish = event;
        else {
          outputSent = true;
          yield event;
        }
      }
    } catch (thrown) {
      finish = { type: "finish", reason: "error", error: SparkError.from(thrown) };
    }
    finish ??= {
      type: "finish",
      reason: "error",
      error: new SparkError(
        "internal_error",
        `${upstream.name} ended its stream without finishing.`,
      ),
    };
    const deadlinePassed = signal.aborted && signal.reason === "deadline";
    if (finish.reason === "cancelled" && !deadlinePassed) {
      // The client stopped it: no verdict on the upstream.
      upstream.breaker.release();
      return { kind: "done", usage, timings, finish };
    }
    if (finish.reason !== "error" && finish.reason !== "cancelled") {
      upstream.breaker.success();
      return { kind: "done", usage, timings, finish };
    }
    // An error, or a stream the deadline cut: a stall up to the deadline counts against the upstream.
    const error =
      finish.error ??
      new SparkError("upstream_timeout", `${upstream.name} did not finish before the deadline.`, {
        retryable: true,
      });
    if (error.retryable || error.code === "model_load_failed" || deadlinePassed)
      upstream.breaker.failure();
    else upstream.breaker.release();
    return { kind: "failed", error, outputSent, usage, timings };
  }

  private *end(
    usage: Usage | undefined,
    timings: Timings | undefined,
    routing: RoutingTimings,
    startedAt: number,
    finish: FinishEvent,
  ): Generator<EngineEvent> {
    const totalMs = round(performance.now() - startedAt);
    yield { type: "usage", usage: usage ?? noUsage() };
    yield {
      type: "timings",
      timings: { ...(timings ?? noTimings()), totalMs, routing },
    };
    yield finish;
  }

  private deadlineError(routing: RoutingTimings, startedAt: number): SparkError {
    if (!routing.deadlineExceeded) {
      routing.deadlineExceeded = true;
      this.metrics.countDeadlineExceeded();
    }
    return new SparkError(
      "upstream_timeout",
      `The request's ${this.policy.deadlineMs} ms deadline passed after ${Math.round(performance.now() - startedAt)} ms (${routing.attempts.length} attempt(s)).`,
      { retryable: true },
    );
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.chain.map((upstream) => ({ id: upstream.name, engine: "router" }));
  }

  /** The upstream engines belong to the registry, which disposes them. */
  async dispose(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

function finishFor(error: SparkError): FinishEvent {
  return error.code === "cancelled"
    ? { type: "finish", reason: "cancelled" }
    : { type: "finish", reason: "error", error };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
