// Questions a surface asks of a folded transcript: which edit Undo reaches, which approval a key
// answers, how many undo steps reach an edit.
import type { TranscriptItem } from "./transcript-items.ts";

/** The edit a click on Undo would reach first: the newest one not undone yet. */
export function latestUndoableEdit(items: readonly TranscriptItem[]): string | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind === "edit" && !item.undone) return item.undoEntryId;
  }
  return undefined;
}

/** The approval a y / a / n answers: the newest one still waiting. */
export function pendingApproval(items: readonly TranscriptItem[]): string | undefined {
  const waiting = items.findLast((item) => item.kind === "approval" && item.decision === undefined);
  return waiting?.id;
}

/** How many undo steps reach this entry (edit/undo always undoes the newest first). */
export function undoStepsTo(items: readonly TranscriptItem[], undoEntryId: string): number {
  const pending: string[] = [];
  for (const item of items) {
    if (item.kind === "edit" && !item.undone && !pending.includes(item.undoEntryId)) {
      pending.push(item.undoEntryId);
    }
  }
  const index = pending.indexOf(undoEntryId);
  return index < 0 ? 0 : pending.length - index;
}
