// The status line's live figures for one turn: time to first token and tokens/s, kept as the
// session's events arrive.

export interface StreamMetrics {
  /** Of the running or last turn: its start to its first text delta, as this client saw it. */
  timeToFirstTokenMs: number | null;
  /** While streaming: text deltas per second between the first and latest delta (a lower bound:
   * the server sends the tokens of one tick as one delta). When the turn ends: its real output
   * tokens over the same span. */
  decodeTokensPerSecond: number | null;
  contextTokens: number | null;
  windowTokens: number | null;
  cachedPromptTokens: number | null;
  turnStartedAt: number | null;
  firstDeltaAt: number | null;
  lastDeltaAt: number | null;
  deltaCount: number;
  /** Text and tool-call arguments the model wrote since the last budget event. */
  charactersSinceBudget: number;
}

/** Before each model call: the prompt it gets, estimated by the server. */
export function recordBudget(
  metrics: StreamMetrics,
  usedTokens: number,
  windowTokens: number,
): void {
  metrics.contextTokens = usedTokens;
  metrics.windowTokens = windowTokens;
  metrics.charactersSinceBudget = 0;
}

/**
 * When a turn ends, its last answer is context too, though no budget event follows it: the
 * last step's output tokens (the turn's own when it had one step; otherwise about four
 * characters a token of what streamed since the last budget). A long answer moved the meter
 * only at the next turn before.
 */
export function addLastAnswerToContext(
  metrics: StreamMetrics,
  steps: number,
  outputTokens: number,
): void {
  if (metrics.contextTokens === null) return;
  const answerTokens = steps === 1 ? outputTokens : Math.ceil(metrics.charactersSinceBudget / 4);
  metrics.contextTokens += answerTokens;
  metrics.charactersSinceBudget = 0;
}

export function startTurnMetrics(metrics: StreamMetrics, at: number): void {
  metrics.turnStartedAt = at;
  metrics.firstDeltaAt = null;
  metrics.lastDeltaAt = null;
  metrics.deltaCount = 0;
  metrics.timeToFirstTokenMs = null;
  metrics.decodeTokensPerSecond = null;
}

export function countDelta(metrics: StreamMetrics, at: number): void {
  metrics.firstDeltaAt ??= at;
  metrics.lastDeltaAt = at;
  metrics.deltaCount += 1;
  if (metrics.timeToFirstTokenMs === null && metrics.turnStartedAt !== null)
    metrics.timeToFirstTokenMs = at - metrics.turnStartedAt;
  const spanMs = at - metrics.firstDeltaAt;
  // The first delta only starts the clock: n deltas span n - 1 intervals.
  if (spanMs > 0) metrics.decodeTokensPerSecond = ((metrics.deltaCount - 1) * 1000) / spanMs;
}

/**
 * The turn's real rate: the engine's decoded tokens over its decode time (prefill, queueing and
 * the tools run between steps left out); without those, its output tokens over the span its
 * text streamed.
 */
export function finishRate(
  metrics: StreamMetrics,
  outputTokens: number,
  decode?: { decodeMs: number; decodeTokens: number },
): void {
  if (decode !== undefined && decode.decodeMs > 0 && decode.decodeTokens > 0) {
    metrics.decodeTokensPerSecond = (decode.decodeTokens * 1000) / decode.decodeMs;
    return;
  }
  if (metrics.firstDeltaAt === null || metrics.lastDeltaAt === null) return;
  const spanMs = metrics.lastDeltaAt - metrics.firstDeltaAt;
  if (spanMs > 0 && outputTokens > 1)
    metrics.decodeTokensPerSecond = (outputTokens * 1000) / spanMs;
}
