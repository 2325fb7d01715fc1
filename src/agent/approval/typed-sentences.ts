// The sentences a user typed, as tokens, for command approval: fenced code blocks, block quotes,
// indented blocks, pasted program output and "double-quoted" text are left out (pasted, quoted
// or uploaded, not said), and inline `code` spans stay whole so a command inside one is a single
// token.
import { withoutPastedOutput } from "./pasted-output.ts";

export type SentenceToken =
  | { kind: "word"; text: string; lower: string }
  | { kind: "code"; text: string }
  /** Commas and colons: where a clause or a list goes on inside one sentence. */
  | { kind: "pause"; mark: "," | ":" }
  /** Text left out in place (a quotation), so words on either side do not join. */
  | { kind: "quoted" };

export interface TypedSentence {
  tokens: SentenceToken[];
  /** Ends with "?". */
  question: boolean;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const BLOCK_QUOTE = /^ {0,3}>/;
const INDENTED = /^(?: {4}|\t)/;
const LEADING_PUNCTUATION = /^[(["'“‘*_]+/;
const TRAILING_PUNCTUATION = /[)\]"'”’.,:;!?*_]+$/;

/**
 * The lines of `text` that the user typed as prose: every line of a fenced block (CommonMark: a
 * fence closes only on a line of at least as many of the same character, so an upload wrapped in
 * a longer fence cannot close it early; an unclosed fence runs to the end), of a block quote and
 * of an indented block becomes an empty line, which ends any sentence around it, and so does
 * program output pasted without a fence (pasted-output.ts).
 */
export function proseLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const prose: string[] = [];
  const excluded: boolean[] = [];
  const leaveOut = (): void => {
    prose.push("");
    excluded.push(true);
  };
  let fence: { character: string; length: number } | undefined;
  for (const line of lines) {
    if (fence !== undefined) {
      const closing = new RegExp(
        `^ {0,3}${fence.character === "`" ? "`" : "~"}{${fence.length},}\\s*$`,
      );
      if (closing.test(line)) fence = undefined;
      leaveOut();
      continue;
    }
    const opening = FENCE_OPEN.exec(line);
    if (opening !== null) {
      const run = opening[1] as string;
      fence = { character: run.charAt(0), length: run.length };
      leaveOut();
      continue;
    }
    if (BLOCK_QUOTE.test(line) || INDENTED.test(line)) {
      leaveOut();
      continue;
    }
    prose.push(line);
    excluded.push(false);
  }
  return withoutPastedOutput(prose, excluded);
}

/** Inline code spans (CommonMark: a run of n backticks closes only on a run of exactly n). */
function splitCodeSpans(line: string): { prose: boolean; text: string }[] {
  const parts: { prose: boolean; text: string }[] = [];
  let proseStart = 0;
  let index = 0;
  while (index < line.length) {
    if (line[index] !== "`") {
      index += 1;
      continue;
    }
    let runEnd = index;
    while (line[runEnd] === "`") runEnd += 1;
    const run = line.slice(index, runEnd);
    const closing = findExactRun(line, run, runEnd);
    if (closing === -1) {
      index = runEnd;
      continue;
    }
    parts.push({ prose: true, text: line.slice(proseStart, index) });
    let body = line.slice(runEnd, closing);
    if (body.length > 2 && body.startsWith(" ") && body.endsWith(" ")) body = body.slice(1, -1);
    parts.push({ prose: false, text: body });
    index = closing + run.length;
    proseStart = index;
  }
  parts.push({ prose: true, text: line.slice(proseStart) });
  return parts;
}

function findExactRun(line: string, run: string, from: number): number {
  for (let index = line.indexOf(run, from); index !== -1; index = line.indexOf(run, index + 1)) {
    if (line[index - 1] !== "`" && line[index + run.length] !== "`") return index;
  }
  return -1;
}

class SentenceBuilder {
  readonly sentences: TypedSentence[] = [];
  private tokens: SentenceToken[] = [];

  add(token: SentenceToken): void {
    this.tokens.push(token);
  }

  end(question = false): void {
    if (this.tokens.length > 0) this.sentences.push({ tokens: this.tokens, question });
    this.tokens = [];
  }

  /** A line break ends the sentence unless the line ended in "," or ":" (a list follows). */
  lineBreak(): void {
    const last = this.tokens.at(-1);
    if (last?.kind !== "pause") this.end();
  }
}

function addProse(text: string, builder: SentenceBuilder): void {
  // "Double-quoted" prose is someone else's words: it stays out, as one placeholder token.
  const pieces = text.split(/("[^"]*"|“[^”]*”)/);
  for (const [index, piece] of pieces.entries()) {
    if (index % 2 === 1) {
      builder.add({ kind: "quoted" });
      continue;
    }
    for (const match of piece.matchAll(/\S+/g)) addWord(match[0], builder);
  }
}

function addWord(raw: string, builder: SentenceBuilder): void {
  const trailing = TRAILING_PUNCTUATION.exec(raw)?.[0] ?? "";
  const word = raw.slice(0, raw.length - trailing.length).replace(LEADING_PUNCTUATION, "");
  if (word !== "") {
    const text = word.replace(/[’‘]/g, "'");
    builder.add({ kind: "word", text, lower: text.toLowerCase() });
  }
  if (trailing.includes("?")) builder.end(true);
  else if (/[.!;]/.test(trailing)) builder.end();
  else if (trailing.includes(":")) builder.add({ kind: "pause", mark: ":" });
  else if (trailing.includes(",")) builder.add({ kind: "pause", mark: "," });
}

/** The user's typed sentences, in order. */
export function typedSentences(text: string): TypedSentence[] {
  const builder = new SentenceBuilder();
  for (const line of proseLines(text)) {
    if (line.trim() === "") {
      builder.end();
      continue;
    }
    for (const part of splitCodeSpans(line)) {
      if (part.prose) addProse(part.text, builder);
      else builder.add({ kind: "code", text: part.text });
    }
    builder.lineBreak();
  }
  builder.end();
  return builder.sentences;
}
