// Turns parsed patch operations into planned file changes without writing anything: a working
// copy of every touched file, updated operation by operation, checked against the read-ledger.
import type { PlannedChange } from "./commit-file-changes.ts";
import { EditError } from "./edit-error.ts";
import type { FileReadLedger } from "./file-read-ledger.ts";
import { decodeExistingFile, readFileState, stateSha256, type FileState } from "./file-state.ts";
import { applyUpdateChunks } from "./apply-update-chunks.ts";
import type { MatchRung } from "./normalize-text.ts";
import type { PatchOperation } from "./patch-types.ts";
import { resolveWritablePath, type WorkspacePath } from "./resolve-workspace-path.ts";
import {
  applyFinalNewline,
  decodeTextFile,
  encodeTextFile,
  NEW_FILE_FORMAT,
  type TextFileFormat,
} from "./text-file-format.ts";

interface WorkingContent {
  text: string;
  format: TextFileFormat;
  mode: number | undefined;
}

export interface WorkingFile {
  target: WorkspacePath;
  before: FileState;
  /** LF text of the file before the patch, for diffs ("" when it did not exist or is binary). */
  beforeText: string;
  current: WorkingContent | null;
  /** Some operation changed this file's working copy. */
  touched: boolean;
  /** The file on disk is not UTF-8 text: it may be deleted but not updated. */
  binary: boolean;
  /** Set on a move destination: the relative path it came from. */
  movedFrom: string | undefined;
  /** Set on a move source, so it is reported as part of the move, not as a delete. */
  movedTo: string | undefined;
  rungs: MatchRung[];
}

export interface PatchPlan {
  files: WorkingFile[];
  changes: PlannedChange[];
}

export async function planPatch(
  operations: readonly PatchOperation[],
  workspaceRoot: string,
  ledger: FileReadLedger,
): Promise<PatchPlan> {
  const files = new Map<string, WorkingFile>();
  // Files this patch created are known to the model even though it never read them.
  const createdHere = new Set<string>();

  const load = async (inputPath: string): Promise<WorkingFile> => {
    const target = resolveWritablePath(workspaceRoot, inputPath);
    const known = files.get(target.absolutePath);
    if (known !== undefined) return known;
    const before = await readFileState(target);
    ledger.assertFresh(target.absolutePath, target.relativePath, stateSha256(before));
    let current: WorkingContent | null = null;
    let binary = false;
    if (before.exists) {
      // Binary files can still be deleted or refused by name; only updating them needs text.
      const decoded = decodeTextFile(before.bytes);
      binary = decoded === undefined;
      current = {
        text: decoded?.text ?? "",
        format: decoded?.format ?? NEW_FILE_FORMAT,
        mode: before.mode,
      };
    }
    const file: WorkingFile = {
      target,
      before,
      beforeText: current?.text ?? "",
      current,
      binary,
      touched: false,
      movedFrom: undefined,
      movedTo: undefined,
      rungs: [],
    };
    files.set(target.absolutePath, file);
    return file;
  };

  for (const operation of operations) {
    if (operation.type === "add-file") {
      const file = await load(operation.path);
      if (file.current !== null) {
        throw new EditError(
          "file_exists",
          `${file.target.relativePath} already exists (patch line ${operation.patchLine}); use '*** Update File:' to change it`,
          { path: file.target.relativePath },
        );
      }
      file.current = { text: operation.content, format: NEW_FILE_FORMAT, mode: undefined };
      file.touched = true;
      createdHere.add(file.target.absolutePath);
      continue;
    }
    if (operation.type === "delete-file") {
      const file = await loadExisting(load, operation.path, operation.patchLine, "delete");
      file.current = null;
      file.touched = true;
      continue;
    }
    const file = await loadExisting(load, operation.path, operation.patchLine, "update");
    if (file.binary && file.before.exists)
      decodeExistingFile(file.before, file.target.relativePath);
    const content = file.current as WorkingContent;
    const updated = applyUpdateChunks(content.text, operation.chunks, file.target.relativePath);
    const knowsFile =
      ledger.hasRead(file.target.absolutePath) || createdHere.has(file.target.absolutePath);
    if (!knowsFile && updated.rungs.some((rung) => rung !== "exact")) {
      throw new EditError(
        "file_not_read",
        `${file.target.relativePath} has not been read in this session and the patch only matches it loosely (ignoring whitespace or punctuation); read the file first, then patch it`,
        { path: file.target.relativePath },
      );
    }
    file.rungs.push(...updated.rungs);
    const next: WorkingContent = {
      ...content,
      text: applyFinalNewline(updated.text, content.format),
    };
    const destination = operation.moveTo === undefined ? file : await load(operation.moveTo);
    file.touched = true;
    if (destination === file) {
      file.current = next;
      continue;
    }
    if (destination.current !== null) {
      throw new EditError(
        "file_exists",
        `cannot move ${file.target.relativePath} to ${destination.target.relativePath} (patch line ${operation.patchLine}): it already exists`,
        { path: destination.target.relativePath },
      );
    }
    destination.current = next;
    destination.touched = true;
    destination.movedFrom = file.target.relativePath;
    destination.beforeText = file.beforeText;
    destination.rungs.push(...updated.rungs);
    createdHere.add(destination.target.absolutePath);
    file.current = null;
    file.movedTo = destination.target.relativePath;
  }
  const all = [...files.values()];
  return { files: all, changes: all.flatMap(toPlannedChange) };
}

async function loadExisting(
  load: (inputPath: string) => Promise<WorkingFile>,
  inputPath: string,
  patchLine: number,
  action: "delete" | "update",
): Promise<WorkingFile> {
  const file = await load(inputPath);
  if (file.current === null) {
    const hint = action === "update" ? "; use '*** Add File:' to create it" : "";
    throw new EditError(
      "file_not_found",
      `cannot ${action} ${file.target.relativePath} (patch line ${patchLine}): it does not exist${hint}`,
      { path: file.target.relativePath },
    );
  }
  return file;
}

function toPlannedChange(file: WorkingFile): PlannedChange[] {
  if (!file.touched) return [];
  const after =
    file.current === null ? null : encodeTextFile(file.current.text, file.current.format);
  if (!file.before.exists && after === null) return [];
  if (file.before.exists && after !== null && after.equals(file.before.bytes)) return [];
  const change: PlannedChange = { target: file.target, before: file.before, after };
  if (file.current?.mode !== undefined) change.mode = file.current.mode;
  return [change];
}
