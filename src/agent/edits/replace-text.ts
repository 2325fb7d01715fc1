// The pure core of the `edit` tool: replace oldText with newText in a file's LF text through the
// matching ladder, refusing a missing or ambiguous match with a message the model can act on.
import { EditError } from "./edit-error.ts";
import { findTextMatches, type TextRange } from "./find-text-matches.ts";
import { describeNearestRegion } from "./nearest-region.ts";
import type { MatchRung } from "./normalize-text.ts";
import { reindentText } from "./reindent.ts";
import { splitLines } from "./text-file-format.ts";

export interface ReplaceTextRequest {
  content: string;
  oldText: string;
  newText: string;
  replaceAll?: boolean;
  /** Used in error messages. */
  relativePath: string;
}

export interface ReplacedText {
  text: string;
  rung: MatchRung;
  /** 1-based line where each replaced occurrence started, in file order. */
  lines: number[];
}

function lineOf(content: string, offset: number): number {
  let line = 1;
  for (
    let index = content.indexOf("\n");
    index !== -1 && index < offset;
    index = content.indexOf("\n", index + 1)
  ) {
    line += 1;
  }
  return line;
}

function formatLines(lines: readonly number[]): string {
  const shown = lines.slice(0, 10).join(", ");
  return lines.length > 10 ? `${shown}, …` : shown;
}

function replacementFor(request: ReplaceTextRequest, range: TextRange, rung: MatchRung): string {
  const fuzzyIndent = rung === "whitespace" || rung === "unicode";
  if (!fuzzyIndent || !range.startsAtLineStart) return request.newText;
  return reindentText(
    request.oldText,
    request.content.slice(range.start, range.end),
    request.newText,
  );
}

export function replaceText(request: ReplaceTextRequest): ReplacedText {
  const { content, oldText, relativePath } = request;
  const found = findTextMatches(content, oldText);
  if (found === undefined) {
    throw new EditError(
      "no_match",
      `oldText was not found in ${relativePath}; ${describeNearestRegion(splitLines(content), splitLines(oldText))}\nCopy oldText exactly from the current file content (or read the file again) and retry.`,
      { path: relativePath },
    );
  }
  const lines = found.ranges.map((range) => lineOf(content, range.start));
  if (found.ranges.length > 1 && request.replaceAll !== true) {
    throw new EditError(
      "ambiguous_match",
      `oldText matched ${found.ranges.length} places in ${relativePath} (lines ${formatLines(lines)}); include more surrounding lines so it matches exactly one, or set replaceAll to change every one`,
      { path: relativePath },
    );
  }
  let text = "";
  let copiedUpTo = 0;
  for (const range of found.ranges) {
    text += content.slice(copiedUpTo, range.start) + replacementFor(request, range, found.rung);
    copiedUpTo = range.end;
  }
  text += content.slice(copiedUpTo);
  return { text, rung: found.rung, lines };
}
