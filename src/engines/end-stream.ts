// The three events every engine stream ends with, in the contract's order: usage, timings
// (measured by the stream's clock), then exactly one finish.
import type { EngineEvent, FinishReason, Timings, Usage } from "./engine.ts";
import type { StreamClock } from "./stream-clock.ts";
import type { SparkError } from "../protocol/spark-error.ts";

export function* endStream(
  clock: StreamClock,
  usage: Usage,
  reason: FinishReason,
  error?: SparkError,
): Generator<EngineEvent, void> {
  yield { type: "usage", usage };
  yield { type: "timings", timings: clock.timings(usage.outputTokens) };
  yield error === undefined ? { type: "finish", reason } : { type: "finish", reason, error };
}

/** Usage of a stream that produced nothing (refused before any work). */
export function noUsage(inputTokens = 0): Usage {
  return { inputTokens, cachedInputTokens: 0, outputTokens: 0 };
}

/** Timings of a stream that did no work. */
export function noTimings(): Timings {
  return {
    queueMs: 0,
    timeToFirstTokenMs: null,
    prefillMs: 0,
    decodeMs: 0,
    decodeTokensPerSecond: null,
    totalMs: 0,
  };
}

/** A whole stream refused before any work: empty usage and timings, then the error. */
export async function* refusedStream(error: SparkError): AsyncGenerator<EngineEvent> {
  yield { type: "usage", usage: noUsage() };
  yield { type: "timings", timings: noTimings() };
  yield { type: "finish", reason: "error", error };
}
