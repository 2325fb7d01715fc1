// The context as a tool call's arguments quote it: a call that copies a file writes the file's text
// inside a JSON string (newlines as `\n`, quotes as `\"`), so prompt lookup inside a call drafts
// from each message's text escaped that way, tokenized with the model's tokenizer. A read_file
// result's numbered lines get a second view without the numbers, as an edit's oldText quotes them.
import type { Token } from "node-llama-cpp";

/** Views remembered across requests (an agent resends its conversation every step). */
const MAX_CACHED_TOKENS = 1 << 20;
const MAX_CACHED_VIEWS = 4096;
/** Shorter texts are not worth a view: a match needs at least 12 characters anyway. */
const MIN_VIEW_CHARACTERS = 16;

/** `text` as it appears between the quotes of a JSON string. */
export function jsonStringContent(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** Lines that all start with a line number and a tab (read_file's output, `cat -n`). */
const NUMBERED_LINE = /^ *\d+\t/;

/** The text without its line numbers, or undefined when its lines are not all numbered. */
export function withoutLineNumbers(text: string): string | undefined {
  const lines = text.split("\n");
  const numbered = lines.filter((line) => line !== "");
  if (numbered.length < 2 || !numbered.every((line) => NUMBERED_LINE.test(line))) return undefined;
  return lines.map((line) => line.replace(NUMBERED_LINE, "")).join("\n");
}

export class EscapedViews {
  /** Keyed by the source text; Map order is recency (most recent last). */
  private readonly views = new Map<string, readonly Token[]>();
  private cachedTokens = 0;

  constructor(private readonly tokenize: (text: string) => Token[]) {}

  /**
   * The tokens of every view of `text` a call may copy that the prompt's own tokens do not
   * already hold: escaped (when escaping changes it) and escaped without line numbers.
   */
  of(text: string): readonly Token[] {
    if (text.length < MIN_VIEW_CHARACTERS) return [];
    const cached = this.views.get(text);
    if (cached !== undefined) {
      this.views.delete(text);
      this.views.set(text, cached);
      return cached;
    }
    let views: Token[] = [];
    const escaped = jsonStringContent(text);
    if (escaped !== text) views = this.tokenize(escaped);
    const unnumbered = withoutLineNumbers(text);
    if (unnumbered !== undefined) {
      views = views.concat(this.tokenize(jsonStringContent(unnumbered)));
    }
    this.remember(text, views);
    return views;
  }

  private remember(text: string, tokens: readonly Token[]): void {
    if (tokens.length > MAX_CACHED_TOKENS / 4) return;
    this.views.set(text, tokens);
    this.cachedTokens += tokens.length;
    for (const [oldest, oldTokens] of this.views) {
      if (this.cachedTokens <= MAX_CACHED_TOKENS && this.views.size <= MAX_CACHED_VIEWS) break;
      this.views.delete(oldest);
      this.cachedTokens -= oldTokens.length;
    }
  }
}
