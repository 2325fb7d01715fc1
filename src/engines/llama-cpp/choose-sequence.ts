// Which idle sequence a request gets, in order: the session's own; the one whose last prompt this
// prompt continues (a follow-up turn resent whole, a keystroke's FIM prompt); a never-used one; the
// one sharing the longest prefix when that keeps most of its cache (llama-server's slot
// similarity); the least recently used. Prefixes are matched only within the request's cache
// scope (tenant), so no tenant is ever handed a cache another left behind as a reuse.
import type { Token } from "node-llama-cpp";

/**
 * How far before the end of a sequence's last stable prefix a prompt may diverge and still
 * continue it: a chat template that renders the generation prompt a little differently from the
 * same assistant message in history, a typed character merging into a FIM prefix's last token.
 */
const CONTINUATION_SLACK_TOKENS = 8;
/**
 * A prompt that forks a sequence's conversation (diverges before its end) takes it only when no
 * sequence is free and it keeps at least this share of that cache; otherwise the least recently
 * used is evicted instead of most of a more recent conversation.
 */
const MIN_FORK_SIMILARITY = 0.5;

/** What the pool reads of a sequence's KV cache, without changing it. */
export interface SequenceCacheReader<Sequence> {
  /** Tokens the sequence's KV cache holds. */
  cachedLength(sequence: Sequence): number;
  /** How many leading tokens of `tokens` the sequence's KV cache holds. */
  sharedPrefixLength(sequence: Sequence, tokens: readonly Token[]): number;
}

export interface PoolPrompt {
  tokens: readonly Token[];
  /**
   * Leading tokens a follow-up request is expected to repeat: a chat prompt's all of them, a FIM
   * prompt's those before the cursor (the suffix after it is where the next keystroke diverges).
   */
  stableLength: number;
}

export interface PooledSequence<Sequence> {
  sequence: Sequence;
  sessionKey: string | undefined;
  /** The cache scope of the last request it served; undefined before its first. */
  scope: string | undefined;
  used: boolean;
  busy: boolean;
  lastUsedAt: number;
  /** The stable length of its last request's prompt (0: it had none). */
  stableLength: number;
}

export type SequenceChoice = "own" | "continued" | "free" | "shared-prefix" | "least-recently-used";

interface PrefixMatch<Sequence> {
  entry: PooledSequence<Sequence>;
  shared: number;
  cached: number;
}

export interface SequenceRequest<Sequence> {
  sessionKey: string | undefined;
  scope: string | undefined;
  prompt: PoolPrompt | undefined;
  cache: SequenceCacheReader<Sequence>;
}

/** Chooses among `idle` (not empty, none busy). */
export function chooseSequence<Sequence>(
  idle: PooledSequence<Sequence>[],
  request: SequenceRequest<Sequence>,
): { entry: PooledSequence<Sequence>; choice: SequenceChoice } {
  const { sessionKey, scope, prompt } = request;
  const own =
    sessionKey === undefined
      ? undefined
      : idle.find((entry) => entry.sessionKey === sessionKey && entry.scope === scope);
  if (own !== undefined) return { entry: own, choice: "own" };
  const matches = prompt === undefined ? [] : prefixMatches(idle, scope, prompt, request.cache);
  // Continuing a conversation costs its owner nothing but the reply's tail, so it comes before a
  // free sequence; a fork would cut another conversation short while a free one sits empty.
  const continued = longestShared(matches.filter(continuesStablePrefix));
  if (continued !== undefined) return { entry: continued.entry, choice: "continued" };
  const free = idle.find((entry) => !entry.used);
  if (free !== undefined) return { entry: free, choice: "free" };
  const fork = longestShared(
    matches.filter((match) => match.shared >= MIN_FORK_SIMILARITY * match.cached),
  );
  if (fork !== undefined) return { entry: fork.entry, choice: "shared-prefix" };
  // Of any scope: preferring the tenant's own would evict its most recent conversation while
  // another tenant's long-idle cache stays (a foreign cache is cleared before use).
  return { entry: leastRecentlyUsed(idle), choice: "least-recently-used" };
}

function prefixMatches<Sequence>(
  idle: PooledSequence<Sequence>[],
  scope: string | undefined,
  prompt: PoolPrompt,
  cache: SequenceCacheReader<Sequence>,
): PrefixMatch<Sequence>[] {
  const matches: PrefixMatch<Sequence>[] = [];
  for (const entry of idle) {
    if (!entry.used || entry.scope !== scope) continue;
    const shared = cache.sharedPrefixLength(entry.sequence, prompt.tokens);
    if (shared === 0) continue;
    matches.push({ entry, shared, cached: cache.cachedLength(entry.sequence) });
  }
  return matches;
}

function continuesStablePrefix<Sequence>(match: PrefixMatch<Sequence>): boolean {
  const { stableLength } = match.entry;
  if (stableLength === 0) return false;
  // A short prompt allows less slack: two conversations must not look alike by their template.
  const slack = Math.min(CONTINUATION_SLACK_TOKENS, Math.floor(stableLength / 8));
  return match.shared >= stableLength - slack;
}

/** The match sharing the most tokens; of equals, the least recently used. */
function longestShared<Sequence>(
  matches: PrefixMatch<Sequence>[],
): PrefixMatch<Sequence> | undefined {
  let best: PrefixMatch<Sequence> | undefined;
  for (const match of matches) {
    if (
      best === undefined ||
      match.shared > best.shared ||
      (match.shared === best.shared && match.entry.lastUsedAt < best.entry.lastUsedAt)
    )
      best = match;
  }
  return best;
}

function leastRecentlyUsed<Sequence>(
  entries: PooledSequence<Sequence>[],
): PooledSequence<Sequence> {
  return entries.reduce((oldest, entry) => (entry.lastUsedAt < oldest.lastUsedAt ? entry : oldest));
}
