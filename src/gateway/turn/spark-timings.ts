// Spark's per-response timings extension, built the same way for every transport.
import type { RoutingTimings, Timings, Usage } from "../../engines/engine.ts";
import type { SparkRoutingTimings, SparkTimings } from "../../protocol/responses-events.ts";

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
    ...(usage?.diskCachedInputTokens === undefined
      ? {}
      : { prefill_tokens_from_disk: usage.diskCachedInputTokens }),
    decode_tokens_per_second: timings?.decodeTokensPerSecond ?? null,
    gateway_overhead_ms: gatewayOverheadMs,
    ...(timings?.decodeLoop === undefined ? {} : { decode_loop: timings.decodeLoop }),
    ...(timings?.sampling === undefined ? {} : { sampling: timings.sampling }),
    ...(timings?.routing === undefined ? {} : { routing: sparkRoutingTimings(timings.routing) }),
  };
}

function sparkRoutingTimings(routing: RoutingTimings): SparkRoutingTimings {
  return {
    model: routing.model,
    attempts: routing.attempts.map((attempt) => ({
      model: attempt.model,
      outcome: attempt.outcome,
      ...(attempt.code === undefined ? {} : { code: attempt.code }),
      duration_ms: attempt.durationMs,
    })),
    retries: routing.retries,
    fallbacks: routing.fallbacks,
    backoff_ms: routing.backoffMs,
    deadline_exceeded: routing.deadlineExceeded,
  };
}
