// A fresh process starts where the last one left off: as the engine opens, the last process's
// newest short turn, or else its system prefix (the system prompt and tools its conversations
// began with), is loaded into a sequence nothing holds yet, so the first request's prompt finds it
// in memory, or waits for a load that ran while its prompt rendered, instead of reading it after.
import type { NativeSequence } from "../native-loop/native-sequence.ts";
import type { SequencePool } from "../sequence-pool.ts";
import type { CachedEntry, EntryDirectory } from "./entry-directory.ts";

export interface WarmStartHooks {
  /** The folder's entries, as the listing the engine made as it opened found them. */
  entries(): Promise<CachedEntry[]>;
  /** Reads the entry's state into the sequence; false when it could not (the file is handled). */
  load(sequence: NativeSequence, directory: EntryDirectory, entry: CachedEntry): Promise<boolean>;
  /** Records how many tokens the sequence holds from disk, for the request that reuses them. */
  loaded(sequence: NativeSequence, tokens: number): void;
}

/**
 * Takes a sequence at once (before the first request can: that request then waits for the load
 * while its prompt renders) and loads the entry into it. Never throws: a warm start that cannot
 * happen leaves the engine as it was.
 */
export function loadWhereLastLeftOff(
  directory: EntryDirectory,
  pool: SequencePool<NativeSequence>,
  scope: string | undefined,
  hooks: WarmStartHooks,
): Promise<number> {
  const lease = pool.acquireBeforeOthers(undefined, scope);
  if (lease === undefined) return Promise.resolve(0);
  const load = async (): Promise<number> => {
    const entry = warmStartEntry(await hooks.entries());
    if (entry === undefined) return 0;
    const { tokens } = entry.header;
    if (lease.sequence.cachedTokens.length > 0 || tokens.length > lease.sequence.contextSize)
      return 0;
    if (!(await hooks.load(lease.sequence, directory, entry))) return 0;
    lease.recordPrompt({ tokens, stableLength: tokens.length });
    hooks.loaded(lease.sequence, tokens.length);
    return tokens.length;
  };
  // The folder unreadable, the engine disposed meanwhile: the first request reads as before.
  return load()
    .catch(() => 0)
    .finally(() => lease.release());
}

/**
 * The newest turn (the end of the last conversation: all of it is reused when that is resumed) is
 * loaded in place of the system prefix it continues while it holds at most this many times the
 * prefix's tokens. Guessing wrong either way costs copies: the turn when a new conversation comes
 * copies its conversation for nothing (while the render runs), the prefix when the conversation is
 * resumed copies the whole turn again after the render; at this ratio, a resume about one start in
 * three is worth the turn. The bench's 10-turn conversation (1.5 times its system prompt) loads whole.
 */
const TURN_TO_PREFIX_RATIO = 2;

/**
 * What the last process left off with: its newest turn when that is short, else the newest system
 * prefix (the system prompt and tools it began with).
 */
function warmStartEntry(listed: readonly CachedEntry[]): CachedEntry | undefined {
  const newest = (kind: "prefix" | "turn"): CachedEntry | undefined => {
    let found: CachedEntry | undefined;
    for (const entry of listed) {
      if (entry.header.kind !== kind) continue;
      if (found === undefined || entry.modifiedAt > found.modifiedAt) found = entry;
    }
    return found;
  };
  const prefix = newest("prefix");
  const turn = newest("turn");
  if (prefix === undefined || turn === undefined) return prefix;
  const prefixTokens = prefix.header.tokens;
  const turnTokens = turn.header.tokens;
  const continuesPrefix =
    turnTokens.length >= prefixTokens.length &&
    prefixTokens.every((token, index) => turnTokens[index] === token);
  return continuesPrefix && turnTokens.length <= TURN_TO_PREFIX_RATIO * prefixTokens.length
    ? turn
    : prefix;
}
