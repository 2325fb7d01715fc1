// Deterministic token text and token-count estimates for the synthetic engine: no model, no
// tokenizer, just stable strings, so the gateway's own cost can be seen and tests can be exact.
import type { ChatMessage } from "../engine.ts";

const WORDS = [
  " alpha",
  " bravo",
  " charlie",
  " delta",
  " echo",
  " foxtrot",
  " golf",
  " hotel",
  " india",
  " juliet",
  " kilo",
  " lima",
  " mike",
  " november",
  " oscar",
  " papa",
  " quebec",
  " romeo",
  " sierra",
  " tango",
  " uniform",
  " victor",
  " whiskey",
  " xray",
  " yankee",
  " zulu",
];

/** Splits a fixed text into tokens of a word plus its leading space, like most BPE vocabularies. */
export function splitIntoTokens(text: string): string[] {
  const tokens = text.match(/\s*\S+/g) ?? [];
  return tokens.length > 0 ? tokens : [text];
}

/** The token at a position of a response: from the fixed text, or from a word list at an offset
 * taken from the prompt, so different prompts give different (but repeatable) answers. */
export function syntheticToken(
  position: number,
  promptHash: number,
  fixedTokens: string[] | undefined,
): string {
  if (fixedTokens !== undefined && fixedTokens.length > 0) {
    const token = fixedTokens[position % fixedTokens.length] ?? "";
    // A repeat of the text starts a new word, so it is separated from the previous one.
    const startsRepeat = position >= fixedTokens.length && position % fixedTokens.length === 0;
    return startsRepeat && !/^\s/.test(token) ? ` ${token}` : token;
  }
  return WORDS[(promptHash + position) % WORDS.length] ?? "";
}

export function hashText(text: string): number {
  // FNV-1a: stable across runs and platforms, which is all determinism needs.
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** A message's token count: about four characters a token, plus a few for the chat template. */
export function estimateMessageTokens(message: ChatMessage): number {
  let characters = message.content.length;
  if (message.role === "assistant") {
    for (const call of message.toolCalls ?? [])
      characters += call.name.length + call.arguments.length;
  }
  return 4 + Math.ceil(characters / 4);
}
