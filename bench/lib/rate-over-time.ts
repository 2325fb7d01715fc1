// Tokens per second over the course of a stream, in fixed time bins, for the "tokens/s over
// time" charts: bursts (speculative acceptance) and stalls show where a single average hides them.
import type { Arrival } from "./token-lateness.ts";

/** [seconds since `startedAt`, tokens/s in that bin] for consecutive bins of `binMs`. */
export function rateOverTime(
  arrivals: readonly Arrival[],
  startedAt: number,
  binMs: number,
): Array<[number, number]> {
  const last = arrivals.at(-1);
  if (last === undefined) return [];
  const binCount = Math.max(1, Math.ceil((last.at - startedAt) / binMs));
  const tokens = new Array<number>(binCount).fill(0);
  for (const arrival of arrivals) {
    const bin = Math.min(binCount - 1, Math.max(0, Math.floor((arrival.at - startedAt) / binMs)));
    tokens[bin] = (tokens[bin] ?? 0) + arrival.tokens;
  }
  return tokens.map((count, bin) => [
    Number((((bin + 1) * binMs) / 1000).toFixed(3)),
    (count * 1000) / binMs,
  ]);
}
