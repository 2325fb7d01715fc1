// What a completion request carries: a prefix and a suffix window around the cursor, the document
// id the server keys its KV cache on, and whether the cursor sits where a whole block is wanted.

export interface CompletionContext {
  /** The whole document text. */
  text: string;
  /** The cursor as an offset into text. */
  offset: number;
  /** A stable id for the document (its URI); the server reuses the cached prefix per document. */
  documentId: string;
  languageId: string;
  /**
   * When the text last changed, on the engine's clock: the pause before a request runs from the
   * keystroke, so time the editor already waited (VS Code's own 50 ms) is not waited twice.
   */
  changedAt?: number;
  /** The time between that change and the one before it: short inside a burst of typing. */
  typingGapMs?: number;
}

export interface CompletionRequest {
  prefix: string;
  suffix: string;
  documentId: string;
  languageId: string;
  multiline: boolean;
  maxTokens: number;
}

export interface CompletionWindowOptions {
  maxPrefixChars?: number;
  maxSuffixChars?: number;
  singleLineMaxTokens?: number;
  multilineMaxTokens?: number;
}

const OPENS_BLOCK = /(?:[{([:]|=>|\bthen|\bdo)\s*$/;

export function buildCompletionRequest(
  context: CompletionContext,
  options: CompletionWindowOptions = {},
): CompletionRequest {
  const maxPrefixChars = options.maxPrefixChars ?? 8_000;
  const maxSuffixChars = options.maxSuffixChars ?? 2_000;
  const offset = Math.max(0, Math.min(context.offset, context.text.length));
  const prefix = cutPrefixAtLineStart(context.text.slice(0, offset), maxPrefixChars);
  const suffix = cutSuffixAtLineEnd(context.text.slice(offset), maxSuffixChars);
  const multiline = isAtEmptyBlock(prefix, suffix);
  return {
    prefix,
    suffix,
    documentId: context.documentId,
    languageId: context.languageId,
    multiline,
    maxTokens: multiline
      ? (options.multilineMaxTokens ?? 256)
      : (options.singleLineMaxTokens ?? 64),
  };
}

/**
 * Ghost text only where it can continue the line: at its end, or before closing brackets, closing
 * quotes and whitespace (which editors insert in pairs as the user types the opener). In the
 * middle of `foo(|bar)` a completion would have to be inserted into text the user wrote.
 */
export function completionAllowedAt(context: CompletionContext): boolean {
  const offset = Math.max(0, Math.min(context.offset, context.text.length));
  const lineEnd = context.text.indexOf("\n", offset);
  const afterCursor = context.text.slice(offset, lineEnd === -1 ? undefined : lineEnd);
  return ALLOWED_AFTER_CURSOR.test(afterCursor);
}

const ALLOWED_AFTER_CURSOR = /^[\s)\]}>"'`]*$/;

/**
 * The prefix window starts at a line start: a stable start keeps the server's cached prefix
 * valid while the user types at the end (a window sliding one character per key would not).
 */
function cutPrefixAtLineStart(prefix: string, maxChars: number): string {
  if (prefix.length <= maxChars) return prefix;
  const cut = prefix.length - maxChars;
  const lineStart = prefix.indexOf("\n", cut);
  return lineStart === -1 ? prefix.slice(cut) : prefix.slice(lineStart + 1);
}

function cutSuffixAtLineEnd(suffix: string, maxChars: number): string {
  if (suffix.length <= maxChars) return suffix;
  const lineEnd = suffix.lastIndexOf("\n", maxChars);
  return lineEnd <= 0 ? suffix.slice(0, maxChars) : suffix.slice(0, lineEnd + 1);
}

/**
 * True when the cursor is on an empty line (or at the end of a line that opens a block) right
 * after a line that opens a block, and the block is still empty: then a whole body is wanted,
 * not the rest of one line.
 */
export function isAtEmptyBlock(prefix: string, suffix: string): boolean {
  const lineStart = prefix.lastIndexOf("\n") + 1;
  const currentLineBefore = prefix.slice(lineStart);
  const suffixLineEnd = suffix.indexOf("\n");
  const currentLineAfter = suffixLineEnd === -1 ? suffix : suffix.slice(0, suffixLineEnd);
  // Text after the cursor other than closing brackets means the user is inside a line.
  if (!/^[\s)\]}]*$/.test(currentLineAfter)) return false;
  if (OPENS_BLOCK.test(currentLineBefore))
    return nextLineIsNotIndentedDeeper(currentLineBefore, suffix);
  if (currentLineBefore.trim() !== "") return false;
  const previousLine = lastNonEmptyLine(prefix.slice(0, Math.max(0, lineStart - 1)));
  if (previousLine === undefined || !OPENS_BLOCK.test(previousLine)) return false;
  return nextLineIsNotIndentedDeeper(previousLine, suffix);
}

function lastNonEmptyLine(text: string): string | undefined {
  const lines = text.split("\n");
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index] ?? "";
    if (line.trim() !== "") return line;
  }
  return undefined;
}

/** The block is empty when the next non-empty line is not indented deeper than its opener. */
function nextLineIsNotIndentedDeeper(openerLine: string, suffix: string): boolean {
  const afterCurrentLine =
    suffix.indexOf("\n") === -1 ? "" : suffix.slice(suffix.indexOf("\n") + 1);
  const nextLine = afterCurrentLine.split("\n").find((line) => line.trim() !== "");
  if (nextLine === undefined) return true;
  return indentationOf(nextLine) <= indentationOf(openerLine);
}

function indentationOf(line: string): number {
  return line.length - line.trimStart().length;
}
