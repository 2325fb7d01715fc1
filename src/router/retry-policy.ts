// How long to wait before retrying an upstream: exponential backoff with jitter, never shorter
// than what the upstream asked for in `retry-after`, and a cap past which waiting is not worth it
// (the router falls back to the next model instead).

export interface RetrySettings {
  /** Attempts per upstream, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `retry-after` longer than this skips the upstream rather than waiting. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_SETTINGS: RetrySettings = {
  maxAttempts: 2,
  baseDelayMs: 200,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 10_000,
};

/**
 * The wait before retry number `retry` (1 for the first retry), or undefined when the upstream's
 * `retry-after` is over the cap. "Equal jitter": half the exponential step is fixed, half random,
 * so simultaneous clients spread out without any retrying at once.
 */
export function retryDelayMs(
  settings: RetrySettings,
  retry: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfterMs !== undefined && retryAfterMs > settings.maxRetryAfterMs) return undefined;
  const step = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (retry - 1));
  const backoff = step / 2 + random() * (step / 2);
  return Math.round(Math.max(backoff, retryAfterMs ?? 0));
}
