// Where a quick edit applies when the document changed while it streamed: the selection's original
// text, found again in the current document. Refuses (undefined) when that text is gone or could be
// in more than one place, rather than writing over whatever now sits at the old offsets.

export interface AnchoredSelection {
  /** The document's whole text when the edit started. */
  documentText: string;
  /** The selection as offsets into documentText. */
  start: number;
  end: number;
}

export interface TextSpan {
  start: number;
  end: number;
}

/** How much surrounding text breaks a tie between several copies of the selection. */
const CONTEXT_CHARS = 400;

export function reanchorSelection(
  selection: AnchoredSelection,
  currentText: string,
): TextSpan | undefined {
  if (currentText === selection.documentText) return { start: selection.start, end: selection.end };
  const selected = selection.documentText.slice(selection.start, selection.end);
  if (selected === "") return undefined;
  const candidates: number[] = [];
  for (
    let index = currentText.indexOf(selected);
    index !== -1;
    index = currentText.indexOf(selected, index + 1)
  )
    candidates.push(index);
  if (candidates.length === 0) return undefined;
  const only =
    candidates.length === 1 ? candidates[0] : pickByContext(selection, currentText, candidates);
  return only === undefined ? undefined : { start: only, end: only + selected.length };
}

/** The one candidate whose surroundings match the original's best; undefined on a tie. */
function pickByContext(
  selection: AnchoredSelection,
  currentText: string,
  candidates: readonly number[],
): number | undefined {
  const length = selection.end - selection.start;
  const before = selection.documentText.slice(
    Math.max(0, selection.start - CONTEXT_CHARS),
    selection.start,
  );
  const after = selection.documentText.slice(selection.end, selection.end + CONTEXT_CHARS);
  let best: number | undefined;
  let bestScore = -1;
  let tied = false;
  for (const candidate of candidates) {
    const score =
      commonSuffixLength(
        before,
        currentText.slice(Math.max(0, candidate - CONTEXT_CHARS), candidate),
      ) +
      commonPrefixLength(
        after,
        currentText.slice(candidate + length, candidate + length + CONTEXT_CHARS),
      );
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
      tied = false;
    } else if (score === bestScore) tied = true;
  }
  return tied ? undefined : best;
}

function commonPrefixLength(first: string, second: string): number {
  let index = 0;
  while (index < first.length && index < second.length && first[index] === second[index]) index++;
  return index;
}

function commonSuffixLength(first: string, second: string): number {
  let count = 0;
  while (
    count < first.length &&
    count < second.length &&
    first[first.length - 1 - count] === second[second.length - 1 - count]
  )
    count++;
  return count;
}
