// Writes GGUF v3 files: header, typed metadata, tensor infos, aligned tensor data. Tensor data is
// produced row-chunk by row-chunk and streamed through a file handle, so multi-GB files never sit
// in memory.

import { open } from "node:fs/promises";
import {
  encodeTensorValues,
  encodedByteLength,
  ggmlTypeIds,
  q8BlockSize,
  type GgufTensorType,
} from "./tensor-encoding.ts";

export type GgufMetadataValue =
  | { type: "uint32"; value: number }
  | { type: "int32"; value: number }
  | { type: "uint64"; value: bigint }
  | { type: "float32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "string[]"; value: readonly string[] }
  | { type: "float32[]"; value: ArrayLike<number> }
  | { type: "int32[]"; value: ArrayLike<number> };

export interface GgufTensor {
  name: string;
  /** Innermost (contiguous) dimension first, as GGUF lists them: a matrix is [columns, rows]. */
  dimensions: readonly number[];
  type: GgufTensorType;
  /** Fills `target` (rowCount whole rows of dimensions[0] values) starting at row `firstRow`. */
  fillRows: (firstRow: number, rowCount: number, target: Float32Array) => void;
}

export interface GgufWriteOptions {
  metadata: ReadonlyMap<string, GgufMetadataValue>;
  tensors: readonly GgufTensor[];
  alignment?: number;
  signal?: AbortSignal;
}

export interface GgufWriteResult {
  byteLength: number;
  parameterCount: number;
}

const ggufMagic = 0x46554747; // "GGUF" read as a little-endian uint32
const ggufVersion = 3;
const valueTypeIds = {
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
  uint64: 10,
} as const;
// Rows are generated and written in chunks of about this many values (4 MiB of f32 scratch).
const chunkValueCount = 1 << 20;

/** Growable little-endian byte builder for the header, which is small next to the tensor data. */
class ByteBuilder {
  private buffer = Buffer.alloc(1 << 16);
  length = 0;

  /** Grows the buffer and returns the write offset; call it before reading this.buffer. */
  private reserve(byteCount: number): number {
    if (this.length + byteCount > this.buffer.length) {
      const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + byteCount));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    const offset = this.length;
    this.length += byteCount;
    return offset;
  }

  uint32(value: number): void {
    const offset = this.reserve(4);
    this.buffer.writeUInt32LE(value, offset);
  }
  int32(value: number): void {
    const offset = this.reserve(4);
    this.buffer.writeInt32LE(value, offset);
  }
  uint64(value: bigint | number): void {
    const offset = this.reserve(8);
    this.buffer.writeBigUInt64LE(BigInt(value), offset);
  }
  float32(value: number): void {
    const offset = this.reserve(4);
    this.buffer.writeFloatLE(value, offset);
  }
  bool(value: boolean): void {
    const offset = this.reserve(1);
    this.buffer.writeUInt8(value ? 1 : 0, offset);
  }
  string(value: string): void {
    const bytes = Buffer.from(value, "utf8");
    this.uint64(bytes.length);
    const offset = this.reserve(bytes.length);
    bytes.copy(this.buffer, offset);
  }
  padTo(alignment: number): void {
    this.reserve(paddingFor(this.length, alignment)); // Buffer.alloc already zeroed it
  }
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function paddingFor(offset: number, alignment: number): number {
  return (alignment - (offset % alignment)) % alignment;
}

function writeMetadataValue(builder: ByteBuilder, entry: GgufMetadataValue): void {
  switch (entry.type) {
    case "uint32":
    case "int32":
    case "uint64":
    case "float32":
    case "bool":
    case "string":
      builder.uint32(valueTypeIds[entry.type]);
      writeScalar(builder, entry);
      return;
    case "string[]":
      builder.uint32(valueTypeIds.array);
      builder.uint32(valueTypeIds.string);
      builder.uint64(entry.value.length);
      for (const item of entry.value) builder.string(item);
      return;
    case "float32[]":
    case "int32[]": {
      const isFloat = entry.type === "float32[]";
      builder.uint32(valueTypeIds.array);
      builder.uint32(isFloat ? valueTypeIds.float32 : valueTypeIds.int32);
      builder.uint64(entry.value.length);
      for (let index = 0; index < entry.value.length; index++) {
        const item = entry.value[index] ?? 0;
        if (isFloat) builder.float32(item);
        else builder.int32(item);
      }
      return;
    }
    default:
      entry satisfies never;
  }
}

function writeScalar(builder: ByteBuilder, entry: GgufMetadataValue): void {
  if (entry.type === "uint32") builder.uint32(entry.value);
  else if (entry.type === "int32") builder.int32(entry.value);
  else if (entry.type === "uint64") builder.uint64(entry.value);
  else if (entry.type === "float32") builder.float32(entry.value);
  else if (entry.type === "bool") builder.bool(entry.value);
  else if (entry.type === "string") builder.string(entry.value);
}

export function tensorValueCount(tensor: Pick<GgufTensor, "dimensions">): number {
  return tensor.dimensions.reduce((product, dimension) => product * dimension, 1);
}

function validateTensor(tensor: GgufTensor): void {
  const rowLength = tensor.dimensions[0];
  if (rowLength === undefined || tensor.dimensions.some((d) => !Number.isInteger(d) || d < 1)) {
    throw new RangeError(
      `Tensor ${tensor.name} has invalid dimensions [${tensor.dimensions.join(", ")}]`,
    );
  }
  if (tensor.type === "q8_0" && rowLength % q8BlockSize !== 0) {
    throw new RangeError(`Tensor ${tensor.name}: Q8_0 rows must be a multiple of ${q8BlockSize}`);
  }
}

/** Header, metadata and tensor infos, padded to the alignment where tensor data starts. */
function buildHeader(options: GgufWriteOptions, alignment: number): Buffer {
  const metadata = new Map(options.metadata);
  metadata.set("general.alignment", { type: "uint32", value: alignment });
  const builder = new ByteBuilder();
  builder.uint32(ggufMagic);
  builder.uint32(ggufVersion);
  builder.uint64(options.tensors.length);
  builder.uint64(metadata.size);
  for (const [key, entry] of metadata) {
    builder.string(key);
    writeMetadataValue(builder, entry);
  }
  let dataOffset = 0;
  for (const tensor of options.tensors) {
    validateTensor(tensor);
    builder.string(tensor.name);
    builder.uint32(tensor.dimensions.length);
    for (const dimension of tensor.dimensions) builder.uint64(dimension);
    builder.uint32(ggmlTypeIds[tensor.type]);
    builder.uint64(dataOffset);
    const byteLength = encodedByteLength(tensor.type, tensorValueCount(tensor));
    dataOffset += byteLength + paddingFor(byteLength, alignment);
  }
  builder.padTo(alignment);
  return builder.bytes();
}

/** The size and parameter count a write would produce, without generating any tensor data. */
export function measureGgufFile(options: GgufWriteOptions): GgufWriteResult {
  const alignment = options.alignment ?? 32;
  let byteLength = buildHeader(options, alignment).length;
  let parameterCount = 0;
  for (const tensor of options.tensors) {
    const valueCount = tensorValueCount(tensor);
    const tensorBytes = encodedByteLength(tensor.type, valueCount);
    byteLength += tensorBytes + paddingFor(tensorBytes, alignment);
    parameterCount += valueCount;
  }
  return { byteLength, parameterCount };
}

export async function writeGgufFile(
  path: string,
  options: GgufWriteOptions,
): Promise<GgufWriteResult> {
  const alignment = options.alignment ?? 32;
  const header = buildHeader(options, alignment);
  const handle = await open(path, "w");
  let position = 0;
  let parameterCount = 0;
  const write = async (bytes: Uint8Array): Promise<void> => {
    let written = 0;
    while (written < bytes.length) {
      const result = await handle.write(bytes, written, bytes.length - written, position);
      written += result.bytesWritten;
      position += result.bytesWritten;
    }
  };
  try {
    await write(header);
    for (const tensor of options.tensors) {
      options.signal?.throwIfAborted();
      const rowLength = tensor.dimensions[0] ?? 1;
      const rowCount = tensorValueCount(tensor) / rowLength;
      const rowsPerChunk = Math.max(1, Math.floor(chunkValueCount / rowLength));
      const scratch = new Float32Array(Math.min(rowCount, rowsPerChunk) * rowLength);
      for (let firstRow = 0; firstRow < rowCount; firstRow += rowsPerChunk) {
        const chunkRows = Math.min(rowsPerChunk, rowCount - firstRow);
        const values = scratch.subarray(0, chunkRows * rowLength);
        tensor.fillRows(firstRow, chunkRows, values);
        await write(encodeTensorValues(tensor.type, values));
      }
      parameterCount += rowCount * rowLength;
      const byteLength = encodedByteLength(tensor.type, rowCount * rowLength);
      await write(Buffer.alloc(paddingFor(byteLength, alignment)));
    }
  } finally {
    await handle.close();
  }
  return { byteLength: position, parameterCount };
}
