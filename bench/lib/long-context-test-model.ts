// The tiny test model with its trained context raised (4k → 32k+), so the session benchmark can
// grow a conversation to ~32k tokens: same weights, one GGUF metadata value patched in a copy.
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { ensureTestModel } from "../../test/support/test-model.ts";

const GGUF_UINT32 = 4;

/** Path of a copy of the tiny test model whose `<arch>.context_length` is `contextLength`. */
export async function ensureLongContextTestModel(contextLength: number): Promise<string> {
  const basePath = await ensureTestModel();
  const path = join(
    dirname(basePath),
    basePath.replace(/^.*\//, "").replace(/\.gguf$/, `-ctx${contextLength}.gguf`),
  );
  if (await isFile(path)) return path;
  const bytes = await readFile(basePath);
  patchContextLength(bytes, contextLength);
  const temporaryPath = `${path}.${process.pid}.tmp`;
  await writeFile(temporaryPath, bytes);
  await rename(temporaryPath, path);
  return path;
}

/** Overwrites the uint32 value of the `*.context_length` key in a GGUF header, in place. The
 * value has a fixed width, so nothing after it moves. */
export function patchContextLength(bytes: Buffer, contextLength: number): void {
  const header = bytes.subarray(0, Math.min(bytes.length, 1 << 20));
  for (const architecture of ["qwen2", "llama"]) {
    const key = Buffer.from(`${architecture}.context_length`);
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(key.length));
    const at = header.indexOf(Buffer.concat([length, key]));
    if (at === -1) continue;
    const typeAt = at + 8 + key.length;
    if (bytes.readUInt32LE(typeAt) !== GGUF_UINT32) {
      throw new SparkError(
        "model_file_invalid",
        `${architecture}.context_length is not a uint32 in this GGUF file`,
      );
    }
    bytes.writeUInt32LE(contextLength, typeAt + 4);
    return;
  }
  throw new SparkError(
    "model_file_invalid",
    "No <architecture>.context_length key found in the GGUF header.",
  );
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
