// How late each token arrived against the pace the synthetic engine keeps: token i is due
// i × interval after the engine started, so lateness isolates what the path to the reader added.

export interface Arrival {
  at: number;
  /** Tokens this delta carries (more than one when a slow connection's deltas were merged). */
  tokens: number;
}

/** One lateness sample per delta, for the last token it carries: arrival − start − index × interval. */
export function tokenLateness(
  startedAt: number,
  arrivals: readonly Arrival[],
  intervalMs: number,
): number[] {
  const lateness: number[] = [];
  let tokensSoFar = 0;
  for (const arrival of arrivals) {
    tokensSoFar += arrival.tokens;
    lateness.push(arrival.at - startedAt - (tokensSoFar - 1) * intervalMs);
  }
  return lateness;
}

/** Word tokens in a synthetic-engine delta (each token is one word with its leading space). */
export function countWordTokens(delta: string): number {
  return delta.match(/\s*\S+/g)?.length ?? 0;
}

/** A start offset in [0, spanMs) spread evenly over the streams (golden-ratio sequence), so
 * concurrent streams run staggered like independent clients rather than in lockstep. */
export function staggerOffset(index: number, spanMs: number): number {
  return ((index * 0.6180339887) % 1) * spanMs;
}
