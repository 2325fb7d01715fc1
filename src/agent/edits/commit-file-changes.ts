// Writes a planned set of file changes as one unit: verify nothing moved under us, stage every
// temp file, then rename/unlink; if any step fails, put back what was already changed. Every
// create, rename and delete goes through the target's folder opened link-free from the workspace
// root (workspace-directory.ts), so a folder swapped for a link meanwhile cannot redirect it.
import { promises as fsp } from "node:fs";
import path from "node:path";
import { SparkError } from "../../protocol/spark-error.ts";
import { EditError } from "./edit-error.ts";
import { fileSystemError, readFileState, stateSha256, type FileState } from "./file-state.ts";
import type { WorkspacePath } from "./resolve-workspace-path.ts";
import { openWorkspaceDirectory, type WorkspaceDirectory } from "./workspace-directory.ts";
import { stageFileIn, type BeforeRenameHook, type StagedFile } from "./write-file-atomic.ts";

export interface PlannedChange {
  target: WorkspacePath;
  /** The disk state the plan was computed from; the commit refuses if the disk differs. */
  before: FileState;
  /** New bytes, or null to delete the file. */
  after: Uint8Array | null;
  /** Mode for `after`; defaults to the existing file's mode (new files: 0o666 minus umask). */
  mode?: number;
}

export interface CommitOptions {
  signal?: AbortSignal;
  /** Test hook passed to the atomic writer (crash simulation). */
  beforeRename?: BeforeRenameHook;
}

async function verifyUnchanged(change: PlannedChange): Promise<void> {
  const { relativePath } = change.target;
  const current = await readFileState(change.target);
  if (stateSha256(current) !== stateSha256(change.before)) {
    throw new EditError(
      "stale_file",
      `${relativePath} changed on disk while the edit was being prepared; read it again before editing`,
      { path: relativePath },
    );
  }
}

function targetFolder(target: WorkspacePath): string {
  const folder = path.posix.dirname(target.relativePath);
  return folder === "." ? "" : folder;
}

/** The target's folder, opened (and created) from the workspace root without following links. */
function createTargetDirectory(target: WorkspacePath): Promise<WorkspaceDirectory> {
  return openWorkspaceDirectory(target.workspaceRoot, targetFolder(target), { create: true });
}

function targetName(target: WorkspacePath): string {
  return path.posix.basename(target.relativePath);
}

/** Removes the target if it is there; a missing folder means there is nothing to remove. */
async function deleteTarget(target: WorkspacePath): Promise<void> {
  const directory = await openWorkspaceDirectory(target.workspaceRoot, targetFolder(target), {
    create: false,
  });
  if (directory === undefined) return;
  try {
    directory.assertInside();
    await fsp.rm(directory.entry(targetName(target)), { force: true });
    await directory.sync();
  } finally {
    await directory.close();
  }
}

async function writeTarget(target: WorkspacePath, bytes: Uint8Array, mode: number): Promise<void> {
  const directory = await createTargetDirectory(target);
  try {
    const staged = await stageFileIn(directory, targetName(target), bytes, { mode });
    await staged.commit();
  } finally {
    await directory.close();
  }
}

async function restore(change: PlannedChange): Promise<void> {
  const { before, target } = change;
  if (before.exists) await writeTarget(target, before.bytes, before.mode);
  else await deleteTarget(target);
}

export async function commitFileChanges(
  changes: readonly PlannedChange[],
  options: CommitOptions = {},
): Promise<void> {
  for (const change of changes) await verifyUnchanged(change);
  const staged = new Map<PlannedChange, StagedFile>();
  const opened: WorkspaceDirectory[] = [];
  const done: PlannedChange[] = [];
  let current: PlannedChange | undefined;
  try {
    for (const change of changes) {
      current = change;
      if (change.after === null) continue;
      const directory = await createTargetDirectory(change.target);
      opened.push(directory);
      const mode = change.mode ?? (change.before.exists ? change.before.mode : undefined);
      const file = await stageFileIn(directory, targetName(change.target), change.after, {
        ...(mode === undefined ? {} : { mode }),
        ...(options.beforeRename === undefined ? {} : { beforeRename: options.beforeRename }),
      });
      staged.set(change, file);
    }
    if (options.signal?.aborted === true) {
      throw new SparkError("cancelled", "The edit was cancelled before any file was written.");
    }
    for (const change of changes) {
      current = change;
      const file = staged.get(change);
      if (file === undefined) await deleteTarget(change.target);
      else await file.commit();
      done.push(change);
    }
  } catch (error) {
    for (const file of staged.values()) await file.discard();
    const rollbackFailures: string[] = [];
    for (const change of done.reverse()) {
      try {
        await restore(change);
      } catch {
        rollbackFailures.push(change.target.relativePath);
      }
    }
    if (error instanceof SparkError && rollbackFailures.length === 0) throw error;
    const failed = fileSystemError(error, "write", current?.target.relativePath ?? "a file");
    if (rollbackFailures.length === 0) throw failed;
    throw new SparkError(
      "internal_error",
      `${failed.message}; restoring ${rollbackFailures.join(", ")} also failed, so the edit is partly applied`,
      { cause: error },
    );
  } finally {
    for (const directory of opened) await directory.close();
  }
}
