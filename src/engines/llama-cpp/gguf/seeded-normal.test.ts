// Checks the seeded weight generator is deterministic and roughly standard normal.

import { describe, expect, it } from "vitest";
import { SeededNormal, hashSeed } from "./seeded-normal.ts";

function sample(seed: number, count: number): Float32Array {
  const values = new Float32Array(count);
  new SeededNormal(seed).fill(values, 1);
  return values;
}

describe("SeededNormal", () => {
  it("repeats for a seed and differs across seeds", () => {
    expect(sample(3, 1000)).toEqual(sample(3, 1000));
    expect(sample(3, 1000)).not.toEqual(sample(4, 1000));
  });

  it("has mean about 0 and standard deviation about 1", () => {
    const values = sample(11, 100_000);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
    expect(Math.abs(mean)).toBeLessThan(0.02);
    expect(Math.sqrt(variance)).toBeGreaterThan(0.98);
    expect(Math.sqrt(variance)).toBeLessThan(1.02);
  });

  it("gives each tensor name its own stream", () => {
    expect(hashSeed(1, "blk.0.attn_q.weight")).not.toBe(hashSeed(1, "blk.0.attn_k.weight"));
    expect(hashSeed(1, "token_embd.weight")).not.toBe(hashSeed(2, "token_embd.weight"));
  });
});
