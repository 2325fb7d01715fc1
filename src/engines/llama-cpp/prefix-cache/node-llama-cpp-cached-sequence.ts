// node-llama-cpp's sequences as the prefix cache sees them, for the engine's node-llama-cpp loop
// (no native addon, or a tool syntax only it speaks). Its state API works on files: a saved state is
// llama.cpp's sequence state file (its tokens, then the KV state) read back into memory, and a
// loaded one is written to a file of its own first. The file's tokens are checked against the
// entry's: a state that holds others is not used.
import { randomUUID } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import { SparkError } from "../../../protocol/spark-error.ts";
import { prefillPrompt } from "../generate-text.ts";
import type { CachedSequence } from "./cached-sequence.ts";
import { sharedPrefixLength } from "./entry-directory.ts";

const adapted = new WeakMap<LlamaContextSequence, CachedSequence>();

/** The one adapter of `sequence` (the cache keeps per-sequence records by it). */
export function nodeLlamaCppCachedSequence(sequence: LlamaContextSequence): CachedSequence {
  let cached = adapted.get(sequence);
  if (cached === undefined) {
    cached = adapt(sequence);
    adapted.set(sequence, cached);
  }
  return cached;
}

function adapt(sequence: LlamaContextSequence): CachedSequence {
  const temporaryFile = (): string => join(tmpdir(), `spark-sequence-state-${randomUUID()}.bin`);
  return {
    get contextSize() {
      return sequence.contextSize;
    },
    get cachedTokens() {
      return sequence.contextTokens;
    },
    sharedPrefixLength: (tokens) =>
      sequence.compareContextTokens(tokens as Token[]).firstDifferentIndex,
    forget: () => sequence.clearHistory(),
    async saveState(maxBytes) {
      // Read now: node-llama-cpp saves under its evaluation lock, ahead of any later job.
      const tokens = [...sequence.contextTokens];
      const path = temporaryFile();
      try {
        const { fileSize } = await sequence.saveStateToFile(path);
        if (fileSize > maxBytes)
          throw new SparkError("invalid_request", `The state (${fileSize} bytes) is over the cap.`);
        return { tokens, state: await readFile(path) };
      } finally {
        await rm(path, { force: true });
      }
    },
    async restoreState(tokens, state) {
      const path = temporaryFile();
      try {
        await writeFile(path, state);
        await sequence.loadStateFromFile(path, { acceptRisk: true });
      } catch (error) {
        await sequence.clearHistory();
        throw new SparkError("checksum_mismatch", `The state did not load: ${String(error)}`, {
          cause: error,
        });
      } finally {
        await rm(path, { force: true });
      }
      const loaded = sequence.contextTokens;
      if (loaded.length !== tokens.length || sharedPrefixLength(loaded, tokens) !== tokens.length) {
        await sequence.clearHistory();
        throw new SparkError("checksum_mismatch", "The state holds other tokens than its entry.");
      }
    },
    prefill: (promptTokens) => prefillPrompt(sequence, promptTokens),
  };
}
