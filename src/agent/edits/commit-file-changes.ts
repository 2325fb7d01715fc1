// Writes a planned set of file changes as one unit: verify nothing moved under us, stage every
// temp file, then rename/unlink; if any step fails, put back what was already changed.
import { promises as fsp } from "node:fs";
import path from "node:path";
import { SparkError } from "../../protocol/spark-error.ts";
import { EditError } from "./edit-error.ts";
import { fileSystemError, readFileState, stateSha256, type FileState } from "./file-state.ts";
import type { WorkspacePath } from "./resolve-workspace-path.ts";
import {
  stageFile,
  syncDirectory,
  writeFileAtomic,
  type BeforeRenameHook,
  type StagedFile,
} from "./write-file-atomic.ts";

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

async function restore(change: PlannedChange): Promise<void> {
  const { before, target } = change;
  if (before.exists) {
    await writeFileAtomic(target.absolutePath, before.bytes, { mode: before.mode });
  } else {
    await fsp.rm(target.absolutePath, { force: true });
  }
}

export async function commitFileChanges(
  changes: readonly PlannedChange[],
  options: CommitOptions = {},
): Promise<void> {
  for (const change of changes) await verifyUnchanged(change);
  const staged = new Map<PlannedChange, StagedFile>();
  const done: PlannedChange[] = [];
  let current: PlannedChange | undefined;
  try {
    for (const change of changes) {
      current = change;
      if (change.after === null) continue;
      await fsp.mkdir(path.dirname(change.target.absolutePath), { recursive: true });
      const mode = change.mode ?? (change.before.exists ? change.before.mode : undefined);
      const file = await stageFile(change.target.absolutePath, change.after, {
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
      if (file === undefined) {
        await fsp.rm(change.target.absolutePath, { force: true });
        await syncDirectory(path.dirname(change.target.absolutePath));
      } else {
        await file.commit();
      }
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
  }
}
