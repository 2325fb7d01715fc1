// Where a streamed completion stops, applied to the text so far as it grows: at the first newline
// for a single-line completion, at a line that repeats the suffix's first line or a line just
// written, at a closing bracket that would close a block the completion did not open.

export interface StreamFilterContext {
  prefix: string;
  suffix: string;
  multiline: boolean;
}

export interface FilteredCompletion {
  /** The part of the text to show. */
  text: string;
  /** True when a filter cut the text: the rest of the stream is not wanted. */
  stopped: boolean;
}

export function filterCompletion(text: string, context: StreamFilterContext): FilteredCompletion {
  if (!context.multiline) {
    const newline = text.indexOf("\n");
    // A single-line completion that starts with a newline would show nothing; keep looking.
    if (newline === 0) return { text: "", stopped: true };
    if (newline > 0) return { text: text.slice(0, newline), stopped: true };
    return { text, stopped: false };
  }
  const lines = text.split("\n");
  // The last line may still be growing: only whole lines are judged, except by the bracket rule.
  const wholeLineCount = lines.length - 1;
  const suffixFirstLine = firstNonEmptyLine(context.suffix)?.trim();
  const seen = new Set<string>(
    lastLines(context.prefix, 3)
      .map((line) => line.trim())
      .filter(Boolean),
  );
  let depth = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const trimmed = line.trim();
    const whole = index < wholeLineCount;
    // Lines of brackets alone legitimately repeat (`}` after `}`); only lines with words count.
    if (whole && /\w/.test(trimmed)) {
      if (trimmed === suffixFirstLine || seen.has(trimmed))
        return { text: cutBeforeLine(lines, index), stopped: true };
      seen.add(trimmed);
    }
    for (const character of line) {
      if ("([{".includes(character)) depth++;
      else if (")]}".includes(character)) {
        depth--;
        // A bracket closing what the user wrote belongs to the suffix the user already has.
        if (depth < 0 && index > 0) return { text: cutBeforeLine(lines, index), stopped: true };
      }
    }
  }
  return { text, stopped: false };
}

function cutBeforeLine(lines: readonly string[], index: number): string {
  return lines.slice(0, index).join("\n").replace(/\s+$/, "");
}

function firstNonEmptyLine(text: string): string | undefined {
  return text.split("\n").find((line) => line.trim() !== "");
}

function lastLines(text: string, count: number): string[] {
  return text.split("\n").slice(-count - 1, -1);
}
