// Finds oldText in a file through the matching ladder (exact → trailing whitespace → whitespace →
// unicode punctuation) and maps every fuzzy hit back to the exact range of the original text.
import { MATCH_RUNGS, normalizeText, type MatchRung } from "./normalize-text.ts";

export interface TextRange {
  /** Offsets into the searched text; `end` is exclusive. */
  start: number;
  end: number;
  /** True when the range starts at the beginning of a line (so the replacement may re-indent). */
  startsAtLineStart: boolean;
}

export interface TextMatches {
  rung: MatchRung;
  ranges: TextRange[];
}

/** Returns the hits of the first rung that has any, or undefined when no rung matches. */
export function findTextMatches(content: string, needle: string): TextMatches | undefined {
  for (const rung of MATCH_RUNGS) {
    const ranges =
      rung === "exact" ? findExact(content, needle) : findNormalized(content, needle, rung);
    if (ranges.length > 0) return { rung, ranges };
  }
  return undefined;
}

function findExact(content: string, needle: string): TextRange[] {
  const ranges: TextRange[] = [];
  if (needle.length === 0) return ranges;
  let from = 0;
  for (;;) {
    const start = content.indexOf(needle, from);
    if (start === -1) return ranges;
    const startsAtLineStart = start === 0 || content.charAt(start - 1) === "\n";
    ranges.push({ start, end: start + needle.length, startsAtLineStart });
    from = start + needle.length;
  }
}

function findNormalized(content: string, needle: string, rung: MatchRung): TextRange[] {
  const normalizedNeedle = normalizeText(needle, rung).text;
  // A needle that normalises to nothing but newlines would match almost anywhere.
  if (normalizedNeedle.replaceAll("\n", "").length === 0) return [];
  const haystack = normalizeText(content, rung);
  const ranges: TextRange[] = [];
  let from = 0;
  for (;;) {
    const start = haystack.text.indexOf(normalizedNeedle, from);
    if (start === -1) return ranges;
    ranges.push(
      toOriginalRange(content, haystack.text, haystack.sourceIndex, start, normalizedNeedle.length),
    );
    from = start + normalizedNeedle.length;
  }
}

function toOriginalRange(
  content: string,
  normalized: string,
  sourceIndex: Uint32Array,
  start: number,
  length: number,
): TextRange {
  const end = start + length;
  let originalStart = sourceIndex[start] ?? content.length;
  let originalEnd = (sourceIndex[end - 1] ?? content.length - 1) + 1;
  const startsAtLineStart = start === 0 || normalized.charAt(start - 1) === "\n";
  // Whitespace dropped at the edges of a matched line belongs to the match: the indentation before
  // it and the trailing blanks after it are replaced along with the line.
  if (startsAtLineStart) {
    while (originalStart > 0 && content.charAt(originalStart - 1) !== "\n") originalStart -= 1;
  }
  const endsAtLineEnd = end === normalized.length || normalized.charAt(end) === "\n";
  if (endsAtLineEnd && normalized.charAt(end - 1) !== "\n") {
    while (originalEnd < content.length && content.charAt(originalEnd) !== "\n") originalEnd += 1;
  }
  return { start: originalStart, end: originalEnd, startsAtLineStart };
}
