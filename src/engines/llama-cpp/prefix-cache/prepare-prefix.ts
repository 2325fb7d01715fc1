// A request's prefix before its job, on either decode loop: loaded from disk when the cache holds more
// of the prompt than the sequence does; else, when a chat's sequence lacks the system prompt and
// tools, those are computed first on their own and saved, so the next process starts from them.
import type { Token } from "node-llama-cpp";
import type { EngineRequest } from "../../engine.ts";
import type { CachedSequence } from "./cached-sequence.ts";
import { sharedPrefixLength } from "./entry-directory.ts";
import type { PrefixCache } from "./prefix-cache.ts";
import type { SystemPrefixTokens } from "./system-prefix.ts";

export interface EnginePrefixCache {
  cache: PrefixCache;
  systemPrefix: SystemPrefixTokens;
}

export interface PreparedPrefix {
  /** Prompt tokens the job will find in the sequence because they were loaded from disk. */
  fromDisk: number;
  /** Prompt tokens computed ahead of the job (the system prefix): the job sees them as cached. */
  computedAhead: number;
}

/**
 * A FIM request's state is saved when it computed at least this many prompt tokens: a keystroke's
 * request computes a few past the last one's, a file opened (after a restart, in another editor)
 * all of it, which on a CPU takes seconds for a file of a few hundred lines.
 */
const COMPLETION_SAVE_MINIMUM = 512;

/** Prefixes shorter than this are not split off: their own file is not worth the round trip. */
const MINIMUM_SYSTEM_PREFIX = 64;

export async function preparePrefix(
  prefixCache: EnginePrefixCache,
  sequence: CachedSequence,
  request: EngineRequest,
  prompt: Token[],
  signal: AbortSignal | undefined,
): Promise<PreparedPrefix> {
  const prepared: PreparedPrefix = { fromDisk: 0, computedAhead: 0 };
  const scope = request.cacheScope;
  // A FIM prompt the sequence mostly holds (the last keystroke's) reads nothing; one it does not (a
  // file opened after a restart) may start from an entry its first completion left.
  prepared.fromDisk = await prefixCache.cache.restore(sequence, prompt, scope);
  if (request.completion !== undefined) return prepared;
  // A prompt found on disk came after one that saved its system prefix: no second rendering of
  // the system prompt and tools on the way to this one's first token.
  if (prepared.fromDisk > 0) return prepared;
  const system = prefixCache.systemPrefix.for(request);
  if (system === undefined || isAborted(signal)) return prepared;
  const stable = sharedPrefixLength(system, prompt);
  if (stable < MINIMUM_SYSTEM_PREFIX || stable >= prompt.length - 1) return prepared;
  const before = sequence.sharedPrefixLength(prompt);
  if (before >= stable) return prepared;
  await sequence.prefill(prompt.slice(0, stable), signal);
  // A client gone during it: the prefix is not saved half computed.
  if (isAborted(signal)) return prepared;
  prefixCache.cache.save(sequence, scope, "prefix");
  prepared.computedAhead = stable - before;
  return prepared;
}

/**
 * After the job, before the sequence's lease goes: a chat's turn is saved; a FIM request only when
 * it computed a long prompt (a keystroke's computes a few tokens past the last one's).
 */
export function saveAfterJob(
  prefixCache: EnginePrefixCache,
  sequence: CachedSequence,
  request: EngineRequest,
  computedTokens: number,
): void {
  if (request.completion === undefined)
    prefixCache.cache.save(sequence, request.cacheScope, "turn");
  else if (computedTokens >= COMPLETION_SAVE_MINIMUM)
    prefixCache.cache.save(sequence, request.cacheScope, "completion");
}

/**
 * Starts reading a chat's cached prefixes (before its prompt renders: the lookup needs both). Not
 * for FIM: a keystroke's prompt is in its sequence, and a listing per keystroke would be wasted; a
 * file's first completion lists the folder in its lookup.
 */
export function prefetchPrefixes(
  prefixCache: EnginePrefixCache | undefined,
  request: EngineRequest,
): void {
  if (prefixCache !== undefined && request.completion === undefined)
    void prefixCache.cache.prefetch(request.cacheScope);
}

/** Read through a call: the signal changes across the awaits above. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
