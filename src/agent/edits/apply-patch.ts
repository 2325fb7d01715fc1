// The apply_patch tool's engine: parse the patch, plan every file in memory (nothing written if
// any hunk fails), commit all files as one unit, record it for undo, and report diffs.
import { SparkError } from "../../protocol/spark-error.ts";
import { commitFileChanges } from "./commit-file-changes.ts";
import { EditError } from "./edit-error.ts";
import type { ApplyPatchResult, FileChange } from "./edit-result.ts";
import { diffFile } from "./file-diff.ts";
import type { FileReadLedger } from "./file-read-ledger.ts";
import { parsePatch } from "./parse-patch.ts";
import { planPatch, type WorkingFile } from "./plan-patch.ts";
import { recordCommittedEdit } from "./record-committed-edit.ts";
import type { UndoStack } from "./undo-stack.ts";
import type { BeforeRenameHook } from "./write-file-atomic.ts";

export interface ApplyPatchRequest {
  workspaceRoot: string;
  patchText: string;
  ledger: FileReadLedger;
  undoStack: UndoStack;
  /** Honoured until the first rename; after that the patch completes (or rolls back on error). */
  signal?: AbortSignal;
  /** Test hook: runs between writing each temp file and renaming it (crash simulation). */
  beforeRename?: BeforeRenameHook;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new SparkError("cancelled", "The patch was cancelled.");
}

export function applyPatch(request: ApplyPatchRequest): Promise<ApplyPatchResult> {
  return request.undoStack.exclusive(() => applyPatchNow(request));
}

async function applyPatchNow(request: ApplyPatchRequest): Promise<ApplyPatchResult> {
  throwIfAborted(request.signal);
  const parsed = parsePatch(request.patchText);
  if (parsed.operations.length === 0) {
    throw new EditError(
      "patch_syntax",
      "apply_patch syntax error: the patch contains no file operations (*** Add File, *** Delete File or *** Update File)",
    );
  }
  const plan = await planPatch(parsed.operations, request.workspaceRoot, request.ledger);
  if (plan.changes.length === 0) {
    throw new EditError("no_change", "the patch applies cleanly but changes nothing");
  }
  throwIfAborted(request.signal);
  await commitFileChanges(plan.changes, {
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.beforeRename === undefined ? {} : { beforeRename: request.beforeRename }),
  });
  const entry = await recordCommittedEdit(
    "apply_patch",
    plan.changes,
    request.ledger,
    request.undoStack,
  );
  const changed = new Set(plan.changes.map((change) => change.target.absolutePath));
  const files = plan.files
    .filter((file) => changed.has(file.target.absolutePath) && file.movedTo === undefined)
    .map(describeFile);
  for (const file of plan.files) {
    // A file moved away and then re-created at the same path shows up as its own add.
    if (
      file.movedTo !== undefined &&
      file.current !== null &&
      changed.has(file.target.absolutePath)
    ) {
      files.push(describeFile({ ...file, movedTo: undefined }));
    }
  }
  return {
    files,
    linesAdded: files.reduce((total, file) => total + file.linesAdded, 0),
    linesRemoved: files.reduce((total, file) => total + file.linesRemoved, 0),
    undoEntryId: entry.id,
  };
}

function describeFile(file: WorkingFile): FileChange {
  const path = file.target.relativePath;
  const kind: FileChange["kind"] =
    file.movedFrom !== undefined
      ? "move"
      : file.current === null
        ? "delete"
        : file.before.exists
          ? "update"
          : "add";
  const oldPath = file.movedFrom ?? (file.before.exists ? path : null);
  const change: FileChange = {
    path,
    kind,
    rungs: file.rungs,
    ...diffFile(
      oldPath,
      file.current === null ? null : path,
      file.beforeText,
      file.current?.text ?? "",
    ),
  };
  if (file.movedFrom !== undefined) change.movedFrom = file.movedFrom;
  return change;
}
