// After an edit is on disk: the model now knows the new content (ledger), and the session can
// take the edit back (undo stack).
import { promises as fsp } from "node:fs";
import type { PlannedChange } from "./commit-file-changes.ts";
import type { FileReadLedger } from "./file-read-ledger.ts";
import type { UndoEntry } from "./undo-entry.ts";
import type { UndoStack } from "./undo-stack.ts";

export async function recordCommittedEdit(
  tool: UndoEntry["tool"],
  changes: readonly PlannedChange[],
  ledger: FileReadLedger,
  undoStack: UndoStack,
): Promise<UndoEntry> {
  for (const change of changes) {
    if (change.after === null) {
      ledger.forget(change.target.absolutePath);
      continue;
    }
    const stats = await fsp.stat(change.target.absolutePath).catch(() => undefined);
    ledger.recordContent(change.target.absolutePath, change.after, {
      mtimeMs: stats?.mtimeMs ?? 0,
      size: change.after.length,
    });
  }
  return undoStack.recordChanges(tool, changes);
}
