// Checks the f16 converter against known bit patterns and the Q8_0 quantiser's layout and error.

import { describe, expect, it } from "vitest";
import { SeededNormal } from "./seeded-normal.ts";
import {
  decodeQ8_0,
  encodeTensorValues,
  encodedByteLength,
  float16BitsToFloat32,
  float32ToFloat16Bits,
} from "./tensor-encoding.ts";

describe("float32ToFloat16Bits", () => {
  it("encodes known values exactly", () => {
    expect(float32ToFloat16Bits(0)).toBe(0x0000);
    expect(float32ToFloat16Bits(-0)).toBe(0x8000);
    expect(float32ToFloat16Bits(1)).toBe(0x3c00);
    expect(float32ToFloat16Bits(-2)).toBe(0xc000);
    expect(float32ToFloat16Bits(65504)).toBe(0x7bff);
    expect(float32ToFloat16Bits(1e6)).toBe(0x7c00);
    expect(float32ToFloat16Bits(2 ** -24)).toBe(0x0001);
    expect(float32ToFloat16Bits(Number.NaN) & 0x7c00).toBe(0x7c00);
  });

  it("rounds to nearest even", () => {
    // 1 + 2^-11 sits exactly between 1 and the next half (1 + 2^-10): ties go to the even one.
    expect(float32ToFloat16Bits(1 + 2 ** -11)).toBe(0x3c00);
    expect(float32ToFloat16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });

  it("round-trips every finite half", () => {
    const mismatches: number[] = [];
    for (let bits = 0; bits < 0x7c00; bits++) {
      for (const signed of [bits, bits | 0x8000]) {
        if (float32ToFloat16Bits(float16BitsToFloat32(signed)) !== signed) mismatches.push(signed);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe("Q8_0", () => {
  it("writes 34-byte blocks: f16 scale max|x|/127, then int8 round(x/d)", () => {
    const values = new Float32Array(32).map((_, index) => (index - 16) / 16);
    const bytes = encodeTensorValues("q8_0", values);
    expect(bytes.length).toBe(34);
    expect(encodedByteLength("q8_0", 64)).toBe(68);
    expect(float16BitsToFloat32(bytes.readUInt16LE(0))).toBeCloseTo(1 / 127, 6);
    expect(bytes.readInt8(2)).toBe(-127); // -1.0
    expect(bytes.readInt8(2 + 16)).toBe(0);
    expect(bytes.readInt8(2 + 24)).toBe(64); // 0.5 * 127 = 63.5 rounds away from zero
  });

  it("keeps each value within about half a quantisation step", () => {
    const values = new Float32Array(32 * 64);
    new SeededNormal(7).fill(values, 0.02);
    const decoded = decodeQ8_0(encodeTensorValues("q8_0", values));
    for (let block = 0; block < 64; block++) {
      const slice = values.subarray(block * 32, block * 32 + 32);
      const step = Math.max(...slice.map(Math.abs)) / 127;
      for (let index = 0; index < 32; index++) {
        const error = Math.abs((decoded[block * 32 + index] ?? 0) - (slice[index] ?? 0));
        // Half a step, plus the f16 rounding of the scale (at most 2^-11 relative) times 127.
        expect(error).toBeLessThanOrEqual(step * (0.5 + 127 * 2 ** -11) + 1e-9);
      }
    }
  });

  it("encodes an all-zero block as zeros", () => {
    expect([...encodeTensorValues("q8_0", new Float32Array(32))].every((byte) => byte === 0)).toBe(
      true,
    );
  });

  it("rejects a length that is not a whole number of blocks", () => {
    expect(() => encodeTensorValues("q8_0", new Float32Array(33))).toThrow(RangeError);
  });
});
