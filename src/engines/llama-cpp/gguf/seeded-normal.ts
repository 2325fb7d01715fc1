// Deterministic pseudo-random weights: a seeded xoshiro128** stream mapped through a 65,536-entry
// table of normal quantiles, so gigabytes of "normal" values cost one table read each.

const tableBits = 16;
const tableSize = 1 << tableBits;
let quantileTable: Float32Array | undefined;

/** Peter Acklam's rational approximation of the inverse standard normal CDF (|error| < 1.2e-9). */
function inverseNormal(probability: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
    -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
    4.374664141464968, 2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const lowTail = 0.02425;
  if (probability < lowTail || probability > 1 - lowTail) {
    const tail = probability < lowTail ? probability : 1 - probability;
    const q = Math.sqrt(-2 * Math.log(tail));
    const value =
      (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
    return probability < lowTail ? value : -value;
  }
  const q = probability - 0.5;
  const r = q * q;
  return (
    ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
    (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  );
}

function getQuantileTable(): Float32Array {
  if (quantileTable === undefined) {
    quantileTable = new Float32Array(tableSize);
    for (let index = 0; index < tableSize; index++) {
      quantileTable[index] = inverseNormal((index + 0.5) / tableSize);
    }
  }
  return quantileTable;
}

/** FNV-1a over a string, mixed with the seed: each tensor gets its own independent stream. */
export function hashSeed(seed: number, label: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < label.length; index++) {
    hash = Math.imul(hash ^ label.charCodeAt(index), 0x01000193) >>> 0;
  }
  return hash;
}

export class SeededNormal {
  private state0: number;
  private state1: number;
  private state2: number;
  private state3: number;
  private readonly table = getQuantileTable();

  constructor(seed: number) {
    // splitmix32 spreads one 32-bit seed over the 128-bit state (which must not be all zero).
    let mix = seed >>> 0;
    const next = (): number => {
      mix = (mix + 0x9e3779b9) >>> 0;
      let value = mix;
      value = Math.imul(value ^ (value >>> 16), 0x85ebca6b);
      value = Math.imul(value ^ (value >>> 13), 0xc2b2ae35);
      return (value ^ (value >>> 16)) >>> 0;
    };
    this.state0 = next();
    this.state1 = next();
    this.state2 = next();
    this.state3 = next() | 1;
  }

  /** Fills `target` with normal(0, 1) * scale values, two table reads per 32 random bits. */
  fill(target: Float32Array, scale: number): void {
    // The xoshiro step is inlined on locals: this loop produces every weight of a multi-GB model.
    const table = this.table;
    let state0 = this.state0;
    let state1 = this.state1;
    let state2 = this.state2;
    let state3 = this.state3;
    for (let index = 0; index < target.length; index += 2) {
      const product = Math.imul(state1, 5);
      const bits = Math.imul((product << 7) | (product >>> 25), 9);
      const shifted = state1 << 9;
      state2 ^= state0;
      state3 ^= state1;
      state1 ^= state2;
      state0 ^= state3;
      state2 ^= shifted;
      state3 = (state3 << 11) | (state3 >>> 21);
      target[index] = (table[bits & 0xffff] ?? 0) * scale;
      if (index + 1 < target.length) target[index + 1] = (table[bits >>> 16] ?? 0) * scale;
    }
    this.state0 = state0;
    this.state1 = state1;
    this.state2 = state2;
    this.state3 = state3;
  }
}
