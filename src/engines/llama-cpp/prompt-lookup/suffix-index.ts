// Where the tail of the generated text occurs in the lookup text (prompt + prediction): an index
// of every short token run, then the longest, best-placed match of the history's suffix.
import type { Token } from "node-llama-cpp";

/** Tokens per index key: the shortest run a match is looked up by. */
const KEY_TOKENS = 3;
/** Matches are compared over at most this many characters: beyond it, place decides. */
const MAX_COMPARED_CHARACTERS = 160;

export interface SuffixMatch {
  /** Index in the lookup text just after the match: the first token a draft would copy. */
  end: number;
  /** Characters the match covers (capped at MAX_COMPARED_CHARACTERS). */
  characters: number;
  /** The match reached the comparison cap: it may go back further than `tokens`. */
  capped: boolean;
  /** Tokens the match covers. */
  tokens: number;
}

export interface MatchPreference {
  /** Lookup index the output is expected to be near (just past the last aligned token). */
  anchor: number;
  /** Matches at or after this index (the prediction) are preferred to earlier ones (the prompt). */
  preferredStart: number;
}

export class SuffixIndex {
  /**
   * A hash table of chains in typed arrays, not a Map of arrays: built for every request that
   * drafts, over prompts of 100k+ tokens (a tool turn's lookup holds the prompt and its escaped
   * views), where a Map took ~250 ms and this takes a few. `heads[slot]`: the latest run end
   * whose key hashes to the slot (-1: none); `next[end]`: the one before it in that slot.
   */
  private readonly heads: Int32Array;
  private readonly next: Int32Array;
  private readonly mask: number;

  constructor(
    readonly tokens: readonly Token[],
    private readonly characters: (token: Token) => number,
  ) {
    let slots = 16;
    while (slots < tokens.length * 2) slots *= 2;
    this.mask = slots - 1;
    this.heads = new Int32Array(slots).fill(-1);
    this.next = new Int32Array(Math.max(1, tokens.length));
    // A match must leave a token to draft, so runs ending at the last token are not indexed.
    for (let end = KEY_TOKENS; end < tokens.length; end += 1) {
      const slot = keyOf(tokens, end) & this.mask;
      this.next[end] = this.heads[slot] as number;
      this.heads[slot] = end;
    }
  }

  /**
   * The best occurrence of the history's suffix covering at least `minimumCharacters`: the
   * longest (up to the comparison cap), then in the prediction, then nearest at or after the
   * anchor, then the latest.
   */
  find(
    history: readonly Token[],
    minimumCharacters: number,
    preference: MatchPreference,
  ): SuffixMatch | undefined {
    if (history.length < KEY_TOKENS) return undefined;
    let best: SuffixMatch | undefined;
    const slot = keyOf(history, history.length) & this.mask;
    for (let end = this.heads[slot] as number; end !== -1; end = this.next[end] as number) {
      const match = this.measure(history, end);
      // Fewer tokens than the key means a hash collision (or another key's slot), not a match.
      if (match.tokens < KEY_TOKENS || match.characters < minimumCharacters) continue;
      if (best === undefined || isBetter(match, best, preference)) best = match;
    }
    return best;
  }

  /** How far back the history's suffix and the tokens before `end` agree. */
  private measure(history: readonly Token[], end: number): SuffixMatch {
    let tokens = 0;
    let characters = 0;
    while (
      tokens < end &&
      tokens < history.length &&
      characters < MAX_COMPARED_CHARACTERS &&
      this.tokens[end - 1 - tokens] === history[history.length - 1 - tokens]
    ) {
      characters += this.characters(this.tokens[end - 1 - tokens] as Token);
      tokens += 1;
    }
    const capped = characters >= MAX_COMPARED_CHARACTERS;
    return { end, characters: Math.min(characters, MAX_COMPARED_CHARACTERS), tokens, capped };
  }
}

function isBetter(match: SuffixMatch, best: SuffixMatch, preference: MatchPreference): boolean {
  if (match.characters !== best.characters) return match.characters > best.characters;
  const inPrediction = match.end >= preference.preferredStart;
  if (inPrediction !== best.end >= preference.preferredStart) return inPrediction;
  const distance = distanceFromAnchor(match.end, preference.anchor);
  const bestDistance = distanceFromAnchor(best.end, preference.anchor);
  if (distance !== bestDistance) return distance < bestDistance;
  return match.end > best.end;
}

/** Forward distance from the anchor; a match behind it ranks after every match ahead of it. */
function distanceFromAnchor(end: number, anchor: number): number {
  return end >= anchor ? end - anchor : Number.MAX_SAFE_INTEGER / 2 + (anchor - end);
}

/** A 32-bit hash of the KEY_TOKENS tokens before `end`; collisions are ruled out by `measure`. */
function keyOf(tokens: readonly Token[], end: number): number {
  let hash = 0x811c9dc5;
  for (let index = end - KEY_TOKENS; index < end; index += 1) {
    hash = Math.imul(hash ^ (tokens[index] as number), 0x01000193);
  }
  return hash;
}
