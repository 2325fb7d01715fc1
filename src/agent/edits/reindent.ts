// Re-indents a replacement when a whitespace-insensitive match found oldText at a different
// indentation than the model wrote it, so the new lines land at the file's indentation.

const LEADING_WHITESPACE = /^[ \t]*/;

function leadingWhitespace(line: string): string {
  return LEADING_WHITESPACE.exec(line)?.[0] ?? "";
}

function firstNonBlankLine(lines: readonly string[]): number {
  return lines.findIndex((line) => line.trim().length > 0);
}

/**
 * `oldLines` are the lines the model wrote, `matchedLines` the file's lines they matched (same
 * count, line for line). Lines of `newLines` that start with the model's base indentation get the
 * file's base indentation instead; lines indented less than that base are left as written.
 */
export function reindentLines(
  oldLines: readonly string[],
  matchedLines: readonly string[],
  newLines: readonly string[],
): string[] {
  const index = firstNonBlankLine(oldLines);
  const matched = index === -1 ? undefined : matchedLines[index];
  const written = index === -1 ? undefined : oldLines[index];
  if (matched === undefined || written === undefined) return [...newLines];
  const fromIndent = leadingWhitespace(written);
  const toIndent = leadingWhitespace(matched);
  if (fromIndent === toIndent) return [...newLines];
  return newLines.map((line) => {
    if (line.trim().length === 0 || !line.startsWith(fromIndent)) return line;
    return toIndent + line.slice(fromIndent.length);
  });
}

/** Text form of {@link reindentLines}: `matchedText` must start at the beginning of a line. */
export function reindentText(oldText: string, matchedText: string, newText: string): string {
  return reindentLines(oldText.split("\n"), matchedText.split("\n"), newText.split("\n")).join(
    "\n",
  );
}
