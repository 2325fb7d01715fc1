// Applies an Update File's chunks to a file's text in memory: find each chunk's old lines after
// its @@ anchors and after the previous chunk, through the matching ladder, then splice.
import { EditError } from "./edit-error.ts";
import { LineSearcher } from "./line-searcher.ts";
import { describeNearestRegion } from "./nearest-region.ts";
import type { MatchRung } from "./normalize-text.ts";
import type { PatchLine, UpdateChunk } from "./patch-types.ts";
import { reindentLines } from "./reindent.ts";
import { splitLines } from "./text-file-format.ts";

export interface UpdatedText {
  /** New LF text, ending with "\n" unless it is empty (the caller applies the file's rule). */
  text: string;
  /** The rung each chunk's old lines matched at (anchors are not counted). */
  rungs: MatchRung[];
}

interface Splice {
  start: number;
  deleteCount: number;
  lines: string[];
}

function trimTrailingBlankContext(lines: readonly PatchLine[]): PatchLine[] {
  const trimmed = [...lines];
  while (trimmed.length > 0 && trimmed.at(-1)?.kind === "context" && trimmed.at(-1)?.text === "") {
    trimmed.pop();
  }
  return trimmed;
}

function oldSide(lines: readonly PatchLine[]): string[] {
  return lines.filter((line) => line.kind !== "add").map((line) => line.text);
}

function formatLineList(positions: readonly number[]): string {
  const shown = positions.slice(0, 10).map((position) => position + 1);
  return positions.length > 10 ? `${shown.join(", ")}, …` : shown.join(", ");
}

export function applyUpdateChunks(
  text: string,
  chunks: readonly UpdateChunk[],
  relativePath: string,
): UpdatedText {
  const fileLines = splitLines(text);
  const searcher = new LineSearcher(fileLines);
  const splices: Splice[] = [];
  const rungs: MatchRung[] = [];
  let cursor = 0;
  chunks.forEach((chunk, chunkIndex) => {
    const where = `hunk ${chunkIndex + 1} (patch line ${chunk.patchLine}) for ${relativePath}`;
    for (const anchor of chunk.anchors) {
      const found = searcher.find([anchor], cursor, { firstOnly: true });
      const position = found?.positions[0];
      if (position === undefined) {
        throw new EditError(
          "no_match",
          `${where}: the @@ line '${anchor}' was not found${cursor > 0 ? ` after line ${cursor}` : ""}; ${describeNearestRegion(fileLines, [anchor])}`,
          { path: relativePath },
        );
      }
      cursor = position + 1;
    }
    let lines = chunk.lines;
    let oldLines = oldSide(lines);
    if (oldLines.length === 0) {
      // Pure addition: after the anchor when there is one, else at the end of the file (Codex).
      const start = chunk.anchors.length > 0 ? cursor : fileLines.length;
      splices.push({ start, deleteCount: 0, lines: lines.map((line) => line.text) });
      rungs.push("exact");
      cursor = start;
      return;
    }
    const options = { endOfFile: chunk.endOfFile, firstOnly: chunk.anchors.length > 0 };
    let found = searcher.find(oldLines, cursor, options);
    if (found === undefined && oldLines.at(-1) === "") {
      // A blank line closing a chunk is often the separator before the next one, not context.
      lines = trimTrailingBlankContext(lines);
      oldLines = oldSide(lines);
      found = oldLines.length === 0 ? undefined : searcher.find(oldLines, cursor, options);
    }
    const start = found?.positions[0];
    if (found === undefined || start === undefined) {
      const after = cursor > 0 ? ` after line ${cursor}` : "";
      const end = chunk.endOfFile ? " at the end of the file" : "";
      throw new EditError(
        "no_match",
        `${where}: the context and removed lines were not found${end}${after}; ${describeNearestRegion(fileLines, oldLines)}\nCopy context lines exactly from the current file, or read it again.`,
        { path: relativePath },
      );
    }
    if (found.positions.length > 1) {
      throw new EditError(
        "ambiguous_match",
        `${where}: the context and removed lines match ${found.positions.length} places (lines ${formatLineList(found.positions)}); add more context lines, or an @@ line naming the enclosing function or class, so it matches exactly one`,
        { path: relativePath },
      );
    }
    const matched = fileLines.slice(start, start + oldLines.length);
    splices.push({
      start,
      deleteCount: oldLines.length,
      lines: newSide(lines, matched, found.rung),
    });
    rungs.push(found.rung);
    cursor = start + oldLines.length;
  });
  const result = [...fileLines];
  const ordered = splices
    .map((splice, order) => ({ splice, order }))
    .sort((left, right) => left.splice.start - right.splice.start || left.order - right.order);
  for (const { splice } of ordered.reverse()) {
    result.splice(splice.start, splice.deleteCount, ...splice.lines);
  }
  return { text: result.length === 0 ? "" : `${result.join("\n")}\n`, rungs };
}

/**
 * The replacement block: context lines keep the file's own text (a fuzzy match must not rewrite
 * them), added lines are re-indented when the match was found at another indentation.
 */
function newSide(lines: readonly PatchLine[], matched: readonly string[], rung: MatchRung) {
  const oldLines = oldSide(lines);
  const added = lines.filter((line) => line.kind === "add").map((line) => line.text);
  const reindented =
    rung === "whitespace" || rung === "unicode" ? reindentLines(oldLines, matched, added) : added;
  const block: string[] = [];
  let fileIndex = 0;
  let addIndex = 0;
  for (const line of lines) {
    if (line.kind === "context") block.push(matched[fileIndex] ?? line.text);
    if (line.kind === "add") block.push(reindented[addIndex++] ?? line.text);
    if (line.kind !== "add") fileIndex += 1;
  }
  return block;
}
