// What the prefix cache needs of a sequence, on either decode loop: the tokens its KV cache holds,
// a copy of its state to save, a saved state to load, and a prompt prefix computed on its own.
// The native loop's NativeSequence is one; node-llama-cpp's sequences are adapted to it
// (node-llama-cpp-cached-sequence.ts).
import type { Token } from "node-llama-cpp";

export interface CachedSequence {
  readonly contextSize: number;
  /** The tokens its KV cache holds between jobs. */
  readonly cachedTokens: readonly Token[];
  /** How many leading tokens of `tokens` its cache holds. */
  sharedPrefixLength(tokens: readonly Token[]): number;
  /** Its cache no longer counts (a state that failed its checksum was copied in). */
  forget(): void | Promise<void>;
  /**
   * A copy of its state and the tokens it holds, taken before any later job on it begins (call
   * between jobs, before its lease goes). Rejects above maxBytes.
   */
  saveState(maxBytes: number): Promise<{ tokens: Token[]; state: Buffer }>;
  /** Replaces its cache with a saved state holding `tokens`; on failure its cache is empty. */
  restoreState(tokens: readonly Token[], state: Buffer): Promise<void>;
  /** Evaluates the prompt into the cache and samples nothing; returns the tokens reused. */
  prefill(promptTokens: Token[], signal?: AbortSignal): Promise<number>;
}
