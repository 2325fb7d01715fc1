// Where a fill-in-the-middle completion should end, decided while it streams: before a line that
// repeats the code after the cursor or the line just generated, before a closing bracket that
// belongs to the code around it, and at a line end once the time budget is spent. A line that
// closes a block the completion opened is the completion's own, however much it looks like the
// suffix's `}`: cutting before it leaves ghost text that does not parse.

export type TruncationReason =
  "suffix_line" | "repeated_line" | "unbalanced_bracket" | "time_budget";

export interface TruncationStep {
  /** Text safe to show now. */
  text: string;
  /** Set when the completion must end here: `text` is its last piece. */
  stopped?: TruncationReason;
}

const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
const CLOSERS = new Set([")", "]", "}"]);

/** The suffix's first non-blank line, trimmed: the completion must not write it again. */
export function firstSuffixLine(suffix: string): string | undefined {
  for (const line of suffix.split("\n")) {
    const trimmed = line.trim();
    if (trimmed !== "") return trimmed;
  }
  return undefined;
}

/**
 * Brackets still open on the cursor's line: opened in the prefix's last line and not closed by
 * the rest of that line in the suffix. Only these may be closed by the completion.
 */
export function openBracketsAtCursor(prefix: string, suffix: string): string[] {
  const cursorLine = prefix.slice(prefix.lastIndexOf("\n") + 1);
  const stack: string[] = [];
  for (const character of cursorLine) {
    if (character in OPENERS) stack.push(character);
    else if (
      CLOSERS.has(character) &&
      stack.length > 0 &&
      OPENERS[stack.at(-1) ?? ""] === character
    )
      stack.pop();
  }
  const restOfLine = suffix.split("\n", 1)[0] ?? "";
  for (const character of restOfLine) {
    if (CLOSERS.has(character) && OPENERS[stack.at(-1) ?? ""] === character) stack.pop();
  }
  return stack;
}

/** A line worth calling a repeat: it says something (a lone `}` or `);` legitimately repeats). */
export function isRepeatOf(line: string, previous: string | undefined): boolean {
  const trimmed = line.trim();
  return previous !== undefined && trimmed === previous.trim() && /\w/.test(trimmed);
}

export interface CompletionTruncatorOptions {
  prefix: string;
  suffix: string;
  /** Time budget for generation, counted from the first token (llama.cpp's t_max_predict_ms). */
  maxPredictMs?: number;
  /** The line and bracket rules; default true. A plain completion (no suffix) runs without
   * them: only a fill-in-the-middle has code after the cursor to stop at. */
  lineRules?: boolean;
}

/** Feed it the generated text as it streams; it says what to show and when to stop. */
export class CompletionTruncator {
  private generated = "";
  private emitted = 0;
  /** Where the current (unfinished) line starts in `generated`. */
  private lineStart = 0;
  private previousLine: string | undefined;
  private readonly brackets: string[];
  /** How many of `brackets` (from the bottom) were open at the cursor; the rest are the completion's. */
  private cursorBrackets: number;
  /** The completion's own open brackets when the current line started. */
  private ownAtLineStart = 0;
  private readonly suffixLine: string | undefined;
  private stopped: TruncationReason | undefined;

  constructor(private readonly options: CompletionTruncatorOptions) {
    this.brackets = openBracketsAtCursor(options.prefix, options.suffix);
    this.cursorBrackets = this.brackets.length;
    this.suffixLine = firstSuffixLine(options.suffix);
  }

  get stopReason(): TruncationReason | undefined {
    return this.stopped;
  }

  /** `elapsedMs`: time since the first generated token (for the time budget). */
  push(text: string, elapsedMs = 0): TruncationStep {
    if (this.stopped !== undefined) return { text: "", stopped: this.stopped };
    const start = this.generated.length;
    this.generated += text;
    const lineRules = this.options.lineRules !== false;
    for (let index = start; lineRules && index < this.generated.length; index++) {
      const character = this.generated[index] ?? "";
      if (character === "\n") {
        const cut = this.endLine(index);
        if (cut !== undefined) return cut;
      } else if (character in OPENERS) {
        this.brackets.push(character);
      } else if (CLOSERS.has(character)) {
        if (OPENERS[this.brackets.at(-1) ?? ""] !== character)
          return this.stop(this.trimBlankTail(index), "unbalanced_bracket");
        if (this.brackets.length <= this.cursorBrackets) this.cursorBrackets -= 1;
        this.brackets.pop();
      }
    }
    const budget = this.options.maxPredictMs;
    // Past the budget, a block the completion opened still gets its closing line: the stop waits
    // for a line end where none is open.
    if (budget !== undefined && budget > 0 && elapsedMs >= budget && this.ownAtLineStart === 0) {
      const lastLineEnd = this.generated.lastIndexOf("\n") + 1;
      if (lastLineEnd > 0) return this.stop(lastLineEnd, "time_budget");
    }
    return this.release(lineRules ? this.heldFrom() : this.generated.length);
  }

  /** The end of generation: a held partial line is real output. */
  flush(): string {
    if (this.stopped !== undefined) return "";
    return this.release(this.generated.length).text;
  }

  /** The completion's own brackets still open. */
  private get ownBrackets(): number {
    return this.brackets.length - this.cursorBrackets;
  }

  private endLine(newlineIndex: number): TruncationStep | undefined {
    const line = this.generated.slice(this.lineStart, newlineIndex);
    // `    }` closing the completion's `if (…) {` is not the suffix's `  }`, nor a repeat.
    const closesOwnBlock = this.ownBrackets < this.ownAtLineStart;
    this.ownAtLineStart = this.ownBrackets;
    if (!closesOwnBlock && this.isForbidden(line)) {
      return this.stop(
        this.lineStart,
        this.suffixLine !== undefined && line.trim() === this.suffixLine
          ? "suffix_line"
          : "repeated_line",
      );
    }
    if (line.trim() !== "") this.previousLine = line;
    this.lineStart = newlineIndex + 1;
    return undefined;
  }

  private isForbidden(line: string): boolean {
    const trimmed = line.trim();
    if (trimmed === "") return false;
    // The first line continues the cursor's line: it is never the suffix's next line.
    if (this.suffixLine !== undefined && trimmed === this.suffixLine && this.lineStart > 0)
      return true;
    return isRepeatOf(line, this.previousLine);
  }

  /** The unfinished line is held back while it could still turn out to be a forbidden line. */
  private heldFrom(): number {
    const partial = this.generated.slice(this.lineStart).trimStart();
    const candidates = [this.previousLine, this.lineStart > 0 ? this.suffixLine : undefined];
    const couldBecomeForbidden = candidates.some(
      (line) => line !== undefined && line.trim().startsWith(partial),
    );
    return couldBecomeForbidden ? this.lineStart : this.generated.length;
  }

  /** Cutting before a closer on an otherwise blank line drops that line's indentation too. */
  private trimBlankTail(cutIndex: number): number {
    const lineStart = this.generated.lastIndexOf("\n", cutIndex - 1) + 1;
    if (lineStart > 0 && this.generated.slice(lineStart, cutIndex).trim() === "") return lineStart;
    return cutIndex;
  }

  private stop(cutIndex: number, reason: TruncationReason): TruncationStep {
    this.stopped = reason;
    return { text: this.takeUpTo(Math.max(cutIndex, this.emitted)), stopped: reason };
  }

  private release(upTo: number): TruncationStep {
    return { text: this.takeUpTo(upTo) };
  }

  private takeUpTo(upTo: number): string {
    if (upTo <= this.emitted) return "";
    const text = this.generated.slice(this.emitted, upTo);
    this.emitted = upTo;
    return text;
  }
}
