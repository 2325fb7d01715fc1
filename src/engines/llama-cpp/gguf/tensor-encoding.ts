// Encodes float32 values into the GGML tensor layouts the test-model writer emits: f32, f16 and
// Q8_0 (blocks of 32 int8 values sharing one f16 scale), matching ggml's reference quantiser.

export type GgufTensorType = "f32" | "f16" | "q8_0";

/** The ggml_type ids written into a GGUF tensor info. */
export const ggmlTypeIds: Record<GgufTensorType, number> = { f32: 0, f16: 1, q8_0: 8 };

export const q8BlockSize = 32;
const q8BlockBytes = 2 + q8BlockSize;

const scratchFloat = new Float32Array(1);
const scratchBits = new Uint32Array(scratchFloat.buffer);

/** IEEE half-precision bits for float32 bits, rounding to nearest even like ggml's converter. */
function float32BitsToFloat16Bits(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  if (halfExponent <= 0) {
    if (halfExponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - halfExponent;
    let half = mantissa >>> shift;
    const remainder = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (remainder > halfway || (remainder === halfway && (half & 1) === 1)) half += 1;
    return sign | half;
  }
  let half = (halfExponent << 10) | (mantissa >>> 13);
  const remainder = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (and overflows to infinity).
  if (remainder > 0x1000 || (remainder === 0x1000 && (half & 1) === 1)) half += 1;
  return sign | half;
}

export function float32ToFloat16Bits(value: number): number {
  scratchFloat[0] = value;
  return float32BitsToFloat16Bits(scratchBits[0] ?? 0);
}

export function float16BitsToFloat32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : Number.NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Bytes one row of `rowLength` values takes in the given type. */
export function encodedByteLength(type: GgufTensorType, valueCount: number): number {
  switch (type) {
    case "f32":
      return valueCount * 4;
    case "f16":
      return valueCount * 2;
    case "q8_0":
      return (valueCount / q8BlockSize) * q8BlockBytes;
    default:
      return type satisfies never;
  }
}

/** Encodes values (a whole number of rows) into little-endian bytes of the given type. */
export function encodeTensorValues(type: GgufTensorType, values: Float32Array): Buffer {
  switch (type) {
    case "f32":
      return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
    case "f16":
      return encodeFloat16(values);
    case "q8_0":
      return encodeQ8_0(values);
    default:
      return type satisfies never;
  }
}

function encodeFloat16(values: Float32Array): Buffer {
  // Reading the float bits through an integer view avoids a scratch round trip per value.
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const halves = new Uint16Array(values.length);
  for (let index = 0; index < bits.length; index++) {
    const value = bits[index] ?? 0;
    const exponent = (value >>> 23) & 0xff;
    if (exponent > 112 && exponent < 142) {
      // Inlined common case (normal halves, no overflow); the full converter handles the rest.
      let half = ((value >>> 16) & 0x8000) | ((exponent - 112) << 10) | ((value >>> 13) & 0x3ff);
      const remainder = value & 0x1fff;
      if (remainder > 0x1000 || (remainder === 0x1000 && (half & 1) === 1)) half += 1;
      halves[index] = half;
    } else {
      halves[index] = float32BitsToFloat16Bits(value);
    }
  }
  return Buffer.from(halves.buffer, halves.byteOffset, halves.byteLength);
}

/** ggml's quantize_row_q8_0_ref: d = max|x| / 127 stored as f16, q = round(x / d). */
function encodeQ8_0(values: Float32Array): Buffer {
  if (values.length % q8BlockSize !== 0) {
    throw new RangeError(`Q8_0 needs a multiple of ${q8BlockSize} values, got ${values.length}`);
  }
  const output = Buffer.alloc(encodedByteLength("q8_0", values.length));
  const quants = new Int8Array(output.buffer, output.byteOffset, output.length);
  for (let start = 0, blockOffset = 0; start < values.length; start += q8BlockSize) {
    let maxMagnitude = 0;
    for (let index = start; index < start + q8BlockSize; index++) {
      const magnitude = Math.abs(values[index] ?? 0);
      if (magnitude > maxMagnitude) maxMagnitude = magnitude;
    }
    const scale = Math.fround(maxMagnitude / 127);
    const inverseScale = scale === 0 ? 0 : Math.fround(1 / scale);
    const scaleBits = float32ToFloat16Bits(scale);
    output[blockOffset] = scaleBits & 0xff;
    output[blockOffset + 1] = scaleBits >>> 8;
    for (let index = 0; index < q8BlockSize; index++) {
      const scaled = Math.fround((values[start + index] ?? 0) * inverseScale);
      // roundf rounds halves away from zero; Math.round would round -2.5 to -2.
      quants[blockOffset + 2 + index] = scaled < 0 ? -Math.round(-scaled) : Math.round(scaled);
    }
    blockOffset += q8BlockBytes;
  }
  return output;
}

/** Decodes Q8_0 bytes back to floats (for tests and error bounds). */
export function decodeQ8_0(bytes: Uint8Array): Float32Array {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const blockCount = view.length / q8BlockBytes;
  const values = new Float32Array(blockCount * q8BlockSize);
  for (let block = 0; block < blockCount; block++) {
    const scale = float16BitsToFloat32(view.readUInt16LE(block * q8BlockBytes));
    for (let index = 0; index < q8BlockSize; index++) {
      values[block * q8BlockSize + index] = scale * view.readInt8(block * q8BlockBytes + 2 + index);
    }
  }
  return values;
}
