// Summary statistics for benchmark samples: nearest-rank percentiles and the usual summary, so every
// scenario reports p50/p99 the same way.

export interface Summary {
  count: number;
  mean: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((left, right) => left - right);
  return percentileOfSorted(sorted, p);
}

function percentileOfSorted(sorted: readonly number[], p: number): number {
  const clamped = Math.min(100, Math.max(0, p));
  // Nearest rank: the smallest sample with at least p% of the samples at or below it.
  const rank = Math.max(1, Math.ceil((clamped / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((left, right) => left - right);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    count: sorted.length,
    mean: sorted.length === 0 ? Number.NaN : total / sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentileOfSorted(sorted, 50),
    p90: percentileOfSorted(sorted, 90),
    p99: percentileOfSorted(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Fractional reduction from `baseline` to `value` (0.8 = 80% less); NaN without a baseline. */
export function reduction(baseline: number, value: number): number {
  return baseline > 0 ? 1 - value / baseline : Number.NaN;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
