// Where Ask's Apply puts a code block when nothing is selected: the document lines the block best
// rewrites, found as windows of the block's length (± a few lines) scored by a line-level longest
// common subsequence. A block that matches nothing well enough has no target (it goes in at the
// cursor instead); among equal scores the copy nearest the cursor wins.

export interface LineTarget {
  /** First line of the lines the block replaces (0-based). */
  startLine: number;
  /** The line after the last one replaced (exclusive). */
  endLine: number;
  /** 2·LCS / (block lines + window lines), over non-blank lines: 1 for identical code. */
  score: number;
}

/** Below this the block is taken as new code, not a rewrite of existing lines. */
export const MATCH_THRESHOLD = 0.5;
/** Windows this many lines shorter or longer than the block: a rewrite adds or drops a few. */
const LENGTH_SLACK = 3;

/**
 * The lines of `documentText` that `block` most likely rewrites, or undefined. Lines are compared
 * with their indentation trimmed (a reply often re-indents); blank lines neither match nor count
 * (and never begin or end the lines replaced), and a match made only of lines without a letter or digit (closing braces) is no match.
 */
export function findBlockTarget(
  documentText: string,
  block: string,
  cursorLine: number,
): LineTarget | undefined {
  const blockLines = splitLines(block);
  const documentLines = splitLines(documentText);
  const keys = new Map<string, number>();
  const keyOf = (line: string): number => {
    const trimmed = line.trim();
    if (trimmed === "") return BLANK;
    const known = keys.get(trimmed);
    if (known !== undefined) return known;
    const key = /[\p{L}\p{N}]/u.test(trimmed) ? keys.size + 1 : -(keys.size + 2);
    keys.set(trimmed, key);
    return key;
  };
  const blockKeys = blockLines.map(keyOf);
  const blockCount = blockKeys.filter((key) => key !== BLANK).length;
  if (blockCount === 0 || !blockKeys.some((key) => key > 0)) return undefined;
  const documentKeys = documentLines.map(keyOf);
  // Prefix sums: non-blank lines, and lines that occur in the block (an upper bound of the LCS).
  const inBlock = new Set(blockKeys);
  const nonBlank = prefixSums(documentKeys.map((key) => (key === BLANK ? 0 : 1)));
  const shared = prefixSums(documentKeys.map((key) => (key !== BLANK && inBlock.has(key) ? 1 : 0)));

  let best: (LineTarget & { distance: number; lengthGap: number }) | undefined;
  const shortest = Math.max(1, blockLines.length - LENGTH_SLACK);
  const longest = blockLines.length + LENGTH_SLACK;
  for (let length = shortest; length <= longest; length += 1) {
    for (let start = 0; start + length <= documentLines.length; start += 1) {
      const end = start + length;
      // A window never starts or ends on a blank line: Apply must not eat the spacing around code.
      if (documentKeys[start] === BLANK || documentKeys[end - 1] === BLANK) continue;
      const windowCount = nonBlank[end]! - nonBlank[start]!;
      if (windowCount === 0) continue;
      const bound =
        (2 * Math.min(shared[end]! - shared[start]!, blockCount)) / (blockCount + windowCount);
      if (bound < MATCH_THRESHOLD || (best !== undefined && bound < best.score)) continue;
      const common = commonLines(blockKeys, documentKeys.slice(start, end));
      if (!common.significant) continue;
      const score = (2 * common.count) / (blockCount + windowCount);
      if (score < MATCH_THRESHOLD) continue;
      const candidate = {
        startLine: start,
        endLine: end,
        score,
        distance: distanceTo(cursorLine, start, end),
        lengthGap: Math.abs(length - blockLines.length),
      };
      if (best === undefined || better(candidate, best)) best = candidate;
    }
  }
  if (best === undefined) return undefined;
  return { ...withRewrittenEdges(best, blockLines, documentLines), score: best.score };
}

/**
 * The best window leaves out a first or last line the block changed (leaving it out scores
 * higher): the document lines just outside it that resemble the block's unmatched edge lines are
 * taken in, so the old version of a rewritten line is replaced instead of left above the new one.
 */
function withRewrittenEdges(
  window: { startLine: number; endLine: number },
  blockLines: readonly string[],
  documentLines: readonly string[],
): { startLine: number; endLine: number } {
  const block = blockLines.map((line) => line.trim()).filter((line) => line !== "");
  const inside = new Set(
    documentLines.slice(window.startLine, window.endLine).map((line) => line.trim()),
  );
  let { startLine, endLine } = window;
  // Outward from the block's first and last lines the window holds.
  const first = block.findIndex((line) => inside.has(line));
  const last = block.findLastIndex((line) => inside.has(line));
  for (let index = first - 1; index >= 0; index -= 1) {
    const above = documentLines[startLine - 1]?.trim();
    if (above === undefined || !resembles(above, block[index]!)) break;
    startLine -= 1;
  }
  for (let index = last + 1; last >= 0 && index < block.length; index += 1) {
    const below = documentLines[endLine]?.trim();
    if (below === undefined || !resembles(below, block[index]!)) break;
    endLine += 1;
  }
  return { startLine, endLine };
}

/** Two lines alike at both ends (a changed parameter list, a new argument): most of them shared. */
function resembles(first: string, second: string): boolean {
  if (first === "" || second === "") return false;
  let prefix = 0;
  while (prefix < first.length && prefix < second.length && first[prefix] === second[prefix])
    prefix += 1;
  let suffix = 0;
  while (
    suffix < first.length - prefix &&
    suffix < second.length - prefix &&
    first[first.length - 1 - suffix] === second[second.length - 1 - suffix]
  )
    suffix += 1;
  return prefix + suffix >= 0.5 * Math.max(first.length, second.length);
}

const BLANK = 0;
/** Scores this close are equal: the cursor decides. */
const EPSILON = 1e-9;

interface Ranked {
  score: number;
  distance: number;
  lengthGap: number;
}

function better(candidate: Ranked, best: Ranked): boolean {
  if (Math.abs(candidate.score - best.score) > EPSILON) return candidate.score > best.score;
  // The length nearest the block's first (the same code's windows differ only in it: a changed
  // first or last line stays inside), then the copy nearest the cursor.
  if (candidate.lengthGap !== best.lengthGap) return candidate.lengthGap < best.lengthGap;
  return candidate.distance < best.distance;
}

/** Lines between the cursor and the window: 0 when the cursor is inside it. */
function distanceTo(cursorLine: number, start: number, end: number): number {
  if (cursorLine < start) return start - cursorLine;
  if (cursorLine >= end) return cursorLine - (end - 1);
  return 0;
}

/** The LCS of two key sequences, blank lines skipped, and whether it has a line with a word. */
function commonLines(
  first: readonly number[],
  second: readonly number[],
): { count: number; significant: boolean } {
  const left = first.filter((key) => key !== BLANK);
  const right = second.filter((key) => key !== BLANK);
  // lengths[i][j]: LCS of left[i..] and right[j..]; walked back to see which lines matched.
  const lengths = Array.from({ length: left.length + 1 }, () =>
    new Array<number>(right.length + 1).fill(0),
  );
  for (let i = left.length - 1; i >= 0; i -= 1)
    for (let j = right.length - 1; j >= 0; j -= 1)
      lengths[i]![j] =
        left[i] === right[j]
          ? lengths[i + 1]![j + 1]! + 1
          : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  let significant = false;
  for (let i = 0, j = 0; i < left.length && j < right.length;) {
    if (left[i] === right[j]) {
      if (left[i]! > 0) significant = true;
      i += 1;
      j += 1;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i += 1;
    else j += 1;
  }
  return { count: lengths[0]![0]!, significant };
}

function prefixSums(values: readonly number[]): number[] {
  const sums = [0];
  for (const value of values) sums.push(sums[sums.length - 1]! + value);
  return sums;
}

/** Lines without their terminators; a final newline ends the last line rather than adding one. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
