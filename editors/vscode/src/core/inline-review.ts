// Inline review of a proposal, as Cursor and Copilot show it: the proposal's changed lines are
// written into the document next to the lines they replace (deleted lines first, then added ones)
// and each such hunk waits for Accept (keep the added lines) or Reject (keep the deleted ones).
// This module owns the line diff and where each pending hunk is while the document changes.
import type { TextChange } from "./edit-anchor.ts";

/** One changed run of lines: `removed` (the original's lines) replaced by `added`. */
export interface DiffHunk {
  removed: string;
  added: string;
}

/** A pending hunk in the document, as offsets: [start, removedEnd) deleted, [removedEnd, end) added. */
export interface ReviewHunk {
  id: number;
  start: number;
  removedEnd: number;
  end: number;
  /** 1 when a newline was added after the deleted lines (the file's last line had none). */
  separator: number;
}

/** A range of the document to delete, as offsets. */
export interface Deletion {
  start: number;
  end: number;
}

/** The text written into the document for review and its hunks, offsets from the text's start. */
export interface ReviewLayout {
  text: string;
  hunks: ReviewHunk[];
}

/** Lines with their newline kept, so joining them gives the text back exactly. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The original and the proposal as a sequence of unchanged text and changed hunks, by a longest
 * common subsequence of whole lines (a selection is short: an O(n·m) table is plenty).
 */
export function diffLines(original: string, proposal: string): Array<string | DiffHunk> {
  const a = splitLines(original);
  const b = splitLines(proposal);
  const common: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      common[i]![j] =
        a[i] === b[j]
          ? common[i + 1]![j + 1]! + 1
          : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  const parts: Array<string | DiffHunk> = [];
  let hunk: DiffHunk | undefined;
  const flush = (): void => {
    if (hunk !== undefined) parts.push(hunk);
    hunk = undefined;
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      flush();
      parts.push(a[i]!);
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && common[i + 1]![j]! >= common[i]![j + 1]!)) {
      hunk ??= { removed: "", added: "" };
      hunk.removed += a[i]!;
      i++;
    } else {
      hunk ??= { removed: "", added: "" };
      hunk.added += b[j]!;
      j++;
    }
  }
  flush();
  return parts;
}

/**
 * What review writes in place of `original`: unchanged lines as they are, each hunk as its deleted
 * lines followed by its added lines. A deleted run without a final newline (the file's last line)
 * gets one before the added lines, and loses it again on Accept or Reject.
 */
export function layoutReview(original: string, proposal: string, firstId = 1): ReviewLayout {
  let text = "";
  const hunks: ReviewHunk[] = [];
  let id = firstId;
  for (const part of diffLines(original, proposal)) {
    if (typeof part === "string") {
      text += part;
      continue;
    }
    const separator =
      part.removed !== "" && part.added !== "" && !part.removed.endsWith("\n") ? "\n" : "";
    const start = text.length;
    text += part.removed + separator;
    const removedEnd = text.length;
    text += part.added;
    hunks.push({
      id: id++,
      start,
      removedEnd,
      end: text.length,
      separator: separator.length,
    });
  }
  return { text, hunks };
}

/**
 * The pending hunks of one document, moved by its changes. Typing inside a hunk's added lines
 * keeps the hunk (Accept keeps what was typed); a change that touches its deleted lines, or
 * spans beyond it (undo, a revert), settles it as the user left it: it is no longer pending.
 */
export class PendingHunks {
  private list: ReviewHunk[];

  /** `layout`'s hunks, its text written at `offset` of the document. */
  constructor(layout: ReviewLayout, offset: number) {
    this.list = layout.hunks.map((hunk) => ({
      ...hunk,
      start: hunk.start + offset,
      removedEnd: hunk.removedEnd + offset,
      end: hunk.end + offset,
    }));
  }

  get hunks(): readonly ReviewHunk[] {
    return this.list;
  }

  get size(): number {
    return this.list.length;
  }

  /**
   * The hunk a cursor at `offset` is in: on its deleted or added lines (a cursor at the end of a
   * document whose last line the hunk ends is in it too).
   */
  at(offset: number, documentLength: number): ReviewHunk | undefined {
    return this.list.find(
      (hunk) =>
        hunk.start <= offset &&
        (offset < hunk.end || (offset === hunk.end && offset === documentLength)),
    );
  }

  /** The first hunk after the one the cursor is in (or after the cursor), wrapping to the first. */
  next(offset: number): ReviewHunk | undefined {
    const ordered = this.ordered();
    return ordered.find((hunk) => hunk.start > offset) ?? ordered[0];
  }

  /** The last hunk before the one the cursor is in (or before the cursor), wrapping to the last. */
  previous(offset: number, documentLength: number): ReviewHunk | undefined {
    const from = this.at(offset, documentLength)?.start ?? offset;
    const ordered = this.ordered();
    return ordered.findLast((hunk) => hunk.start < from) ?? ordered.at(-1);
  }

  /** Takes a hunk out (before Accept or Reject writes it), undefined if it is not pending. */
  take(id: number): ReviewHunk | undefined {
    const hunk = this.list.find((candidate) => candidate.id === id);
    this.list = this.list.filter((candidate) => candidate.id !== id);
    return hunk;
  }

  /** Takes every hunk out, last first (so each one's offsets hold while the others are written). */
  takeAll(): ReviewHunk[] {
    const all = [...this.list].sort((first, second) => second.start - first.start);
    this.list = [];
    return all;
  }

  private ordered(): ReviewHunk[] {
    return [...this.list].sort((first, second) => first.start - second.start);
  }

  /** Applies one document change event's changes, in the order VS Code lists them. */
  apply(changes: readonly TextChange[]): void {
    for (const change of changes) {
      const changeEnd = change.rangeOffset + change.rangeLength;
      const shift = change.text.length - change.rangeLength;
      this.list = this.list.flatMap((hunk) => {
        if (changeEnd <= hunk.start) return [shiftHunk(hunk, shift)];
        if (change.rangeOffset >= hunk.end) return [hunk];
        // Typing in the added lines: the hunk grows, and Accept keeps what was typed.
        const inAdded =
          hunk.end > hunk.removedEnd &&
          change.rangeOffset >= hunk.removedEnd &&
          changeEnd <= hunk.end;
        return inAdded ? [{ ...hunk, end: hunk.end + shift }] : [];
      });
    }
  }
}

/** Accept: the deleted lines (and the newline added after them) go; the added lines stay. */
export function acceptDeletion(hunk: ReviewHunk): Deletion {
  return { start: hunk.start, end: hunk.removedEnd };
}

/** Reject: the added lines (and the newline added before them) go; the deleted lines stay. */
export function rejectDeletion(hunk: ReviewHunk): Deletion {
  return { start: hunk.removedEnd - hunk.separator, end: hunk.end };
}

function shiftHunk(hunk: ReviewHunk, shift: number): ReviewHunk {
  return {
    ...hunk,
    start: hunk.start + shift,
    removedEnd: hunk.removedEnd + shift,
    end: hunk.end + shift,
  };
}
