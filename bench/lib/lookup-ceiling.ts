// The ceiling of prompt-lookup decoding for one generation: how many output tokens a perfect
// lookup could have drafted, replaying the generation step by step. At each step it takes the
// longest suffix of the text so far that occurs in prompt + prediction and, among the
// occurrences that long, the one whose continuation matches the real output furthest (an
// oracle: no real lookup knows which), drafting up to the same maximum as the engine.
import type { Token } from "node-llama-cpp";

export interface LookupCeiling {
  outputTokens: number;
  /** Steps (one token sampled, plus the accepted draft). */
  steps: number;
  /** Output tokens the perfect lookup drafted correctly. */
  draftedTokens: number;
  /** Per draft position (0 = first): steps whose draft was right up to and including it. */
  acceptedAt: number[];
}

/** Backward comparison stops here: longer matches are all "the longest". */
const MAX_MATCH_TOKENS = 256;

export function lookupCeiling(
  lookupTokens: readonly Token[],
  history: readonly Token[],
  promptTokens: number,
  maxDraftTokens: number,
): LookupCeiling {
  const acceptedAt = new Array<number>(maxDraftTokens).fill(0);
  let steps = 0;
  let draftedTokens = 0;
  for (let at = promptTokens; at < history.length; steps += 1) {
    const accepted = perfectDraft(lookupTokens, history, at, maxDraftTokens);
    for (let position = 0; position < accepted; position += 1) {
      acceptedAt[position] = (acceptedAt[position] ?? 0) + 1;
    }
    draftedTokens += Math.min(accepted, history.length - at);
    at += accepted + 1;
  }
  return { outputTokens: history.length - promptTokens, steps, draftedTokens, acceptedAt };
}

/** Correct tokens a perfect lookup drafts for history[at…] from history[…at). */
function perfectDraft(
  lookupTokens: readonly Token[],
  history: readonly Token[],
  at: number,
  maxDraftTokens: number,
): number {
  let longest = 0;
  let best = 0;
  for (let end = 1; end < lookupTokens.length; end += 1) {
    let length = 0;
    while (
      length < MAX_MATCH_TOKENS &&
      length < end &&
      length < at &&
      lookupTokens[end - 1 - length] === history[at - 1 - length]
    ) {
      length += 1;
    }
    if (length === 0 || length < longest) continue;
    let continued = 0;
    while (
      continued < maxDraftTokens &&
      end + continued < lookupTokens.length &&
      at + continued < history.length &&
      lookupTokens[end + continued] === history[at + continued]
    ) {
      continued += 1;
    }
    if (length > longest) best = continued;
    else best = Math.max(best, continued);
    longest = length;
  }
  return best;
}
