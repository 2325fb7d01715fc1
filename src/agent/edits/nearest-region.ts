// When oldText or a hunk is not found, finds the region of the file most like it, so the error can
// show the model the lines it probably meant instead of only saying "not found".
import { normalizeLine } from "./normalize-text.ts";

export interface NearestRegion {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Mean per-line similarity in [0, 1]. */
  score: number;
}

const MAX_PATTERN_LINES = 40;
// Bounds the work of the error path: windows × pattern lines compared stays under ~1M.
const MAX_COMPARISONS = 1_000_000;
const MIN_SCORE = 0.3;
const TOKEN = /[A-Za-z0-9_$]+|[^\sA-Za-z0-9_$]/g;

function tokenSet(line: string): Set<string> {
  return new Set(normalizeLine(line, "unicode").match(TOKEN) ?? []);
}

function similarity(left: Set<string>, right: Set<string>): number {
  if (left.size === 0 && right.size === 0) return 1;
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const token of left) if (right.has(token)) shared += 1;
  return (2 * shared) / (left.size + right.size);
}

/** Best window of the pattern's length by mean token similarity, or undefined if none is close. */
export function findNearestRegion(
  fileLines: readonly string[],
  patternLines: readonly string[],
): NearestRegion | undefined {
  const pattern = patternLines.slice(0, MAX_PATTERN_LINES).map(tokenSet);
  const fileLimit = Math.floor(MAX_COMPARISONS / Math.max(1, pattern.length));
  const file = fileLines.slice(0, fileLimit).map(tokenSet);
  if (pattern.length === 0 || file.length === 0) return undefined;
  const window = Math.min(pattern.length, file.length);
  let best: NearestRegion | undefined;
  for (let start = 0; start + window <= file.length; start += 1) {
    let total = 0;
    for (let offset = 0; offset < window; offset += 1) {
      const fileTokens = file[start + offset];
      const patternTokens = pattern[offset];
      if (fileTokens !== undefined && patternTokens !== undefined) {
        total += similarity(fileTokens, patternTokens);
      }
    }
    const score = total / pattern.length;
    if (best === undefined || score > best.score) {
      best = { startLine: start + 1, endLine: start + window, score };
    }
  }
  return best !== undefined && best.score >= MIN_SCORE ? best : undefined;
}

/** Renders lines `startLine..endLine` (1-based) with line numbers, for an error message. */
export function formatNumberedLines(
  fileLines: readonly string[],
  startLine: number,
  endLine: number,
): string {
  const width = String(endLine).length;
  const rendered: string[] = [];
  for (let line = startLine; line <= endLine; line += 1) {
    const text = fileLines[line - 1] ?? "";
    const clipped = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    rendered.push(`${String(line).padStart(width)} | ${clipped}`);
  }
  return rendered.join("\n");
}

/** The hint sentence appended to a no_match error. */
export function describeNearestRegion(
  fileLines: readonly string[],
  patternLines: readonly string[],
): string {
  const region = findNearestRegion(fileLines, patternLines);
  if (region === undefined) return "no similar lines were found; read the file again";
  return `the closest lines are ${region.startLine}-${region.endLine}:\n${formatNumberedLines(
    fileLines,
    region.startLine,
    region.endLine,
  )}`;
}
