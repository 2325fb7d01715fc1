// Spark's per-response timings extension, built the same way for every transport.
import type { Timings, Usage } from "../engines/engine.ts";
import type { SparkTimings } from "../protocol/responses-events.ts";

export function sparkTimings(
  usage: Usage | undefined,
  timings: Timings | undefined,
  timeToFirstTokenMs: number | null,
  gatewayOverheadMs: number,
): SparkTimings {
  return {
    queue_ms: timings?.queueMs ?? 0,
    time_to_first_token_ms: timeToFirstTokenMs,
    prefill_tokens_cached: usage?.cachedInputTokens ?? 0,
    prefill_tokens_computed: usage === undefined ? 0 : usage.inputTokens - usage.cachedInputTokens,
    decode_tokens_per_second: timings?.decodeTokensPerSecond ?? null,
    gateway_overhead_ms: gatewayOverheadMs,
  };
}
