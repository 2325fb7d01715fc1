// Where the user's own words name a command: inside `code` spans and fenced blocks (parsed as
// shell words) or as a run of plain words in the prose, each mention marked negated when the user
// said not to run it ("never run `touch x`", "don't run touch x", "`x` must not run").
import { parseShellCommand } from "./parse-shell-command.ts";

export interface CommandMention {
  /** Offset of the mention in the user's text. */
  start: number;
  end: number;
  negated: boolean;
}

const CODE_SPANS = /```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g;
const PROSE_TOKEN = /\S+/g;
const LEADING_PUNCTUATION = /^[(["'“‘]+/;
const TRAILING_PUNCTUATION = /[)\]"'”’.,:;!?]+$/;
const NEGATION =
  /\b(?:never|not|no|don't|dont|doesn't|didn't|won't|wouldn't|shouldn't|mustn't|can't|cannot|avoid|without|stop|nor|neither|refrain|forbidden|prohibited)\b|n't\b/gi;
const CONTRAST = /\b(?:but|instead|however|rather|except)\b/gi;
/** A line ending in ":" or "," goes on into the next ("Never run this:\n`touch x`"). */
const SENTENCE_END = /[.!?;](?=\s|$)|(?<![:,][ \t]*)\n/g;
const CLAUSE_END = /[.!?;,](?=\s|$)|\n|\b(?:and|then|but|or)\b/;

function sameWords(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((word, index) => word === right[index]);
}

/** Double negatives that ask for the command: "don't forget to run npm test". */
const NOT_FORGETTING = /\b(?:don't|dont|do not|never)\s+forget\b/gi;

/**
 * The text with every code span and "don't forget" blanked out (offsets kept), so neither code
 * nor a double negative reads as a negation.
 */
function maskForNegation(text: string): string {
  const blank = (span: string): string => " ".repeat(span.length);
  return text.replace(CODE_SPANS, blank).replace(NOT_FORGETTING, blank);
}

function lastIndex(pattern: RegExp, text: string): number {
  let last = -1;
  for (const match of text.matchAll(pattern)) last = match.index + match[0].length;
  return last;
}

function isNegated(masked: string, start: number, end: number): boolean {
  const sentenceStart = lastIndex(SENTENCE_END, masked.slice(0, start));
  const before = masked.slice(Math.max(0, sentenceStart), start);
  const negationBefore = lastIndex(NEGATION, before);
  if (negationBefore !== -1 && lastIndex(CONTRAST, before) < negationBefore) return true;
  const after = masked.slice(end);
  const clauseEnd = after.search(CLAUSE_END);
  const clause = clauseEnd === -1 ? after : after.slice(0, clauseEnd);
  return new RegExp(NEGATION.source, "i").test(clause);
}

/** Every place the user's text names exactly `words` as a command. */
export function findCommandMentions(words: readonly string[], userText: string): CommandMention[] {
  const text = userText.replace(/[’‘]/g, "'");
  const masked = maskForNegation(text);
  const places: { start: number; end: number }[] = [];
  for (const span of text.matchAll(CODE_SPANS)) {
    const body = span[1] ?? span[2] ?? "";
    for (const line of body.split("\n")) {
      const parsed = parseShellCommand(line.replace(/^\s*[$>]\s+/, ""));
      if (parsed.kind === "simple" && sameWords(parsed.words, words)) {
        places.push({ start: span.index, end: span.index + span[0].length });
      }
    }
  }
  const tokens = [...text.replaceAll("`", " ").matchAll(PROSE_TOKEN)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
    variants: new Set([
      match[0],
      match[0].replace(LEADING_PUNCTUATION, "").replace(TRAILING_PUNCTUATION, "") || match[0],
    ]),
  }));
  for (let first = 0; first + words.length <= tokens.length; first += 1) {
    const run = tokens.slice(first, first + words.length);
    if (run.every((token, index) => token.variants.has(words[index] as string))) {
      places.push({ start: run[0]?.start ?? 0, end: run.at(-1)?.end ?? 0 });
    }
  }
  return places.map((place) => ({ ...place, negated: isNegated(masked, place.start, place.end) }));
}
