// Token counts of one model call or turn: shared by engines, the gateway and the agent protocol.

export interface Usage {
  inputTokens: number;
  /** Of inputTokens, how many were served from cache rather than computed. */
  cachedInputTokens: number;
  /** Of cachedInputTokens, how many the embedded engine loaded from its prefix cache on disk. */
  diskCachedInputTokens?: number;
  outputTokens: number;
  /** Speculative decoding counters, when a predictor or predicted output was used. */
  acceptedPredictionTokens?: number;
  rejectedPredictionTokens?: number;
}
