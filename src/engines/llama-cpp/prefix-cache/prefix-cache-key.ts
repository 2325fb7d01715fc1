// What a cached prefix is keyed by: the model file's identity (a replaced file never matches), the
// settings that shape its KV state, the cache scope (tenant) and the exact tokens.
import { createHash } from "node:crypto";
import { open, stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Token } from "node-llama-cpp";

/** Read from the model file's start: its header, metadata and first tensors. */
const IDENTITY_HEAD_BYTES = 1024 * 1024;

/** Whatever makes one process's KV state unusable, or different, in another. */
export interface KvShape {
  /** modelFileIdentity(): path, size, mtime and a hash of the file's first MiB. */
  modelIdentity: string;
  /** llama.cpp's release: its state format and kernels. */
  llamaCppRelease: string;
  /** Layers on the GPU (other kernels compute other last bits). */
  gpuLayers: number;
  /** Flash attention stores V untransposed; llama.cpp refuses a state saved the other way. */
  flashAttention: string;
  /**
   * Sequences of the context: each has a KV stream of its own, and llama.cpp refuses a state
   * saved with another number of streams ("n_stream mismatch").
   */
  sequences: number;
  /** The KV cache's element type (the native loop's context keeps llama.cpp's f16). */
  kvType: string;
  /**
   * Set for node-llama-cpp's loop: its states are llama.cpp's state files, with the tokens in
   * front, and its context's settings are its own. Absent for the native loop's (keys unchanged).
   */
  decodeLoop?: "node-llama-cpp";
}

function sha256(...parts: (string | Uint8Array)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

/** Path, size, modification time and the hash of the first MiB: a file copied over or rewritten
 * in place (a re-quantized model under the same name) gets another identity. */
export async function modelFileIdentity(modelPath: string): Promise<string> {
  const path = resolve(modelPath);
  const { size, mtimeMs } = await stat(path);
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(Math.min(size, IDENTITY_HEAD_BYTES));
    await file.read(head, 0, head.length, 0);
    return sha256(JSON.stringify({ path, size, mtimeMs }), head);
  } finally {
    await file.close();
  }
}

/** The folder name for one model and KV shape. */
export function kvShapeKey(shape: KvShape): string {
  return sha256(JSON.stringify(shape)).slice(0, 32);
}

/** The folder name for one cache scope: no tenant's entries sit where another's lookup reads. */
export function scopeKey(scope: string | undefined): string {
  return scope === undefined
    ? "local"
    : `scope-${sha256("spark-cache-scope\0", scope).slice(0, 32)}`;
}

/** An entry's file name: the hash of its exact tokens. */
export function tokensKey(tokens: readonly Token[]): string {
  return sha256(new Uint8Array(Uint32Array.from(tokens).buffer)).slice(0, 40);
}
