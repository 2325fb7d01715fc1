// The benchmark statistics: nearest-rank percentiles, summaries and reductions.
import { describe, expect, it } from "vitest";
import { percentile, reduction, round, summarize } from "../../bench/lib/stats.ts";

describe("bench stats", () => {
  it("takes nearest-rank percentiles of unsorted samples", () => {
    const samples = [9, 1, 8, 2, 7, 3, 6, 4, 5, 10];
    expect(percentile(samples, 50)).toBe(5);
    expect(percentile(samples, 90)).toBe(9);
    expect(percentile(samples, 99)).toBe(10);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile(samples, 100)).toBe(10);
    expect(samples[0]).toBe(9);
  });

  it("gives the single sample for any percentile and NaN for none", () => {
    expect(percentile([4.5], 1)).toBe(4.5);
    expect(percentile([4.5], 99)).toBe(4.5);
    expect(percentile([], 50)).toBeNaN();
  });

  it("summarizes count, mean, extremes and percentiles", () => {
    const values = Array.from({ length: 200 }, (_unused, index) => index + 1);
    expect(summarize(values)).toEqual({
      count: 200,
      mean: 100.5,
      min: 1,
      p50: 100,
      p90: 180,
      p99: 198,
      max: 200,
    });
    expect(summarize([]).count).toBe(0);
    expect(summarize([]).p99).toBeNaN();
  });

  it("states reductions as fractions of the baseline", () => {
    expect(reduction(10, 2)).toBeCloseTo(0.8);
    expect(reduction(10, 15)).toBeCloseTo(-0.5);
    expect(reduction(0, 1)).toBeNaN();
    expect(round(1.23456, 2)).toBe(1.23);
  });
});
