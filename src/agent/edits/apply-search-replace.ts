// The `edit` tool's engine: one search/replace on one file, matched through the ladder, written
// atomically with the file's own line endings, recorded for undo, and reported as a diff.
import { SparkError } from "../../protocol/spark-error.ts";
import { commitFileChanges, type PlannedChange } from "./commit-file-changes.ts";
import { EditError } from "./edit-error.ts";
import type { SearchReplaceResult } from "./edit-result.ts";
import { diffFile } from "./file-diff.ts";
import type { FileReadLedger } from "./file-read-ledger.ts";
import { decodeExistingFile, readFileState, stateSha256 } from "./file-state.ts";
import { recordCommittedEdit } from "./record-committed-edit.ts";
import { replaceText } from "./replace-text.ts";
import { resolveWritablePath } from "./resolve-workspace-path.ts";
import { applyFinalNewline, encodeTextFile, NEW_FILE_FORMAT, toLf } from "./text-file-format.ts";
import type { UndoStack } from "./undo-stack.ts";
import type { BeforeRenameHook } from "./write-file-atomic.ts";

export interface SearchReplaceRequest {
  workspaceRoot: string;
  path: string;
  /** Text to find; "" creates `path` with newText, and only if it does not exist yet. */
  oldText: string;
  newText: string;
  replaceAll?: boolean;
  ledger: FileReadLedger;
  undoStack: UndoStack;
  signal?: AbortSignal;
  /** Test hook: runs between writing the temp file and renaming it (crash simulation). */
  beforeRename?: BeforeRenameHook;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new SparkError("cancelled", "The edit was cancelled.");
}

export function applySearchReplace(request: SearchReplaceRequest): Promise<SearchReplaceResult> {
  return request.undoStack.exclusive(() => applySearchReplaceNow(request));
}

async function applySearchReplaceNow(request: SearchReplaceRequest): Promise<SearchReplaceResult> {
  throwIfAborted(request.signal);
  const target = resolveWritablePath(request.workspaceRoot, request.path);
  const { absolutePath, relativePath } = target;
  const before = await readFileState(target);
  request.ledger.assertFresh(absolutePath, relativePath, stateSha256(before));
  const oldText = toLf(request.oldText);
  const newText = toLf(request.newText);
  let beforeText = "";
  let afterText: string;
  let after: Buffer;
  let rung: SearchReplaceResult["rung"] = "exact";
  let matchedLines: number[] = [];
  if (!before.exists) {
    if (oldText.length > 0) {
      throw new EditError(
        "file_not_found",
        `${relativePath} does not exist; to create it, call edit with an empty oldText and the whole file as newText`,
        { path: relativePath },
      );
    }
    afterText = newText;
    after = encodeTextFile(afterText, { ...NEW_FILE_FORMAT, finalNewline: newText.endsWith("\n") });
  } else {
    if (oldText.length === 0) {
      throw new EditError(
        "file_exists",
        `${relativePath} already exists; give oldText (the exact lines to replace) to edit it`,
        { path: relativePath },
      );
    }
    const decoded = decodeExistingFile(before, relativePath);
    beforeText = decoded.text;
    if (oldText === newText) {
      throw new EditError("no_change", "oldText and newText are identical; nothing to change", {
        path: relativePath,
      });
    }
    const replaced = replaceText({
      content: decoded.text,
      oldText,
      newText,
      replaceAll: request.replaceAll === true,
      relativePath,
    });
    if (!request.ledger.hasRead(absolutePath) && replaced.rung !== "exact") {
      throw new EditError(
        "file_not_read",
        `${relativePath} has not been read in this session and oldText only matches it loosely (ignoring whitespace or punctuation); read the file first, then edit it`,
        { path: relativePath },
      );
    }
    rung = replaced.rung;
    matchedLines = replaced.lines;
    afterText = applyFinalNewline(replaced.text, decoded.format);
    after = encodeTextFile(afterText, decoded.format);
    if (after.equals(before.bytes)) {
      throw new EditError("no_change", `the edit leaves ${relativePath} unchanged`, {
        path: relativePath,
      });
    }
  }
  throwIfAborted(request.signal);
  const change: PlannedChange = { target, before, after };
  await commitFileChanges([change], {
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.beforeRename === undefined ? {} : { beforeRename: request.beforeRename }),
  });
  const entry = await recordCommittedEdit("edit", [change], request.ledger, request.undoStack);
  return {
    path: relativePath,
    kind: before.exists ? "update" : "add",
    rung,
    replacements: before.exists ? matchedLines.length : 0,
    matchedLines,
    undoEntryId: entry.id,
    ...diffFile(before.exists ? relativePath : null, relativePath, beforeText, afterText),
  };
}
