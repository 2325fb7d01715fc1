// Crash-safe file replacement: write a temp file beside the target, fsync it, then rename it over
// the target, so a reader (or a crash) only ever sees the old bytes or the new ones. Workspace
// writes go through an opened folder (workspace-directory.ts) so no link can redirect them.
import { constants, promises as fsp } from "node:fs";
import path from "node:path";
import { SparkError } from "../../protocol/spark-error.ts";
import { forgetTempFile, recordTempFile } from "./temp-file-journal.ts";
import { parseTempName, processIsAlive, tempNameFor } from "./temp-file-name.ts";
import { directoryByPath, type WorkspaceDirectory } from "./workspace-directory.ts";

/** A new file only, never through a link in its place (O_EXCL fails on one too). */
const CREATE_FLAGS =
  constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0);

/** Runs after the temp file is written and synced, before the rename; tests inject crashes here. */
export type BeforeRenameHook = (tempPath: string, targetPath: string) => void | Promise<void>;

export interface AtomicWriteOptions {
  /** File mode for the target; defaults to 0o666 minus the umask for new files. */
  mode?: number;
  signal?: AbortSignal;
  beforeRename?: BeforeRenameHook;
}

export interface StagedFile {
  tempPath: string;
  targetPath: string;
  /** Renames the temp file over the target and syncs the folder. */
  commit(): Promise<void>;
  /** Removes the temp file; safe to call more than once. */
  discard(): Promise<void>;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new SparkError("cancelled", "The edit was cancelled.");
}

/** Writes and syncs a temp file beside the target (an absolute path) without touching it yet. */
export function stageFile(
  targetPath: string,
  data: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<StagedFile> {
  const directory = directoryByPath(path.dirname(targetPath));
  return stageFileIn(directory, path.basename(targetPath), data, options);
}

/**
 * stageFile inside an opened folder: the temp file is created, and later renamed and removed,
 * through `directory.entry`, never through a path a link could redirect. The caller owns (closes)
 * the folder. After the rename the folder must still be inside the workspace, or what was written
 * is removed again and the commit fails.
 */
export async function stageFileIn(
  directory: WorkspaceDirectory,
  name: string,
  data: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<StagedFile> {
  throwIfAborted(options.signal);
  await removeStaleTempFilesIn(directory);
  const tempName = tempNameFor(name);
  // Real paths, for the exit-time journal and the hook; the file system calls use `entry`.
  const tempPath = path.join(directory.absolutePath, tempName);
  const targetPath = path.join(directory.absolutePath, name);
  const discard = async () => {
    await fsp.rm(directory.entry(tempName), { force: true });
    forgetTempFile(tempPath);
  };
  await recordTempFile(tempPath);
  try {
    const handle = await fsp.open(directory.entry(tempName), CREATE_FLAGS, options.mode ?? 0o666);
    try {
      // The signal can stop a large write part-way; the temp file is then removed below.
      await handle.writeFile(data, options.signal === undefined ? {} : { signal: options.signal });
      // open() applies the umask; an existing file's mode must come back exactly.
      if (options.mode !== undefined) await handle.chmod(options.mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await discard();
    throwIfAborted(options.signal);
    throw error;
  }
  const commit = async () => {
    try {
      throwIfAborted(options.signal);
      await options.beforeRename?.(tempPath, targetPath);
      // A rename replaces the name, never writes into the old file: a hard-linked target's other
      // names keep their content, and a link in the target's place is replaced, not followed.
      await fsp.rename(directory.entry(tempName), directory.entry(name));
    } catch (error) {
      await discard();
      throw error;
    }
    forgetTempFile(tempPath);
    try {
      directory.assertInside();
    } catch (error) {
      await fsp.rm(directory.entry(name), { force: true });
      throw error;
    }
    await directory.sync();
  };
  return { tempPath, targetPath, commit, discard };
}

/** Atomically replaces (or creates) `targetPath` with `data`. */
export async function writeFileAtomic(
  targetPath: string,
  data: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const staged = await stageFile(targetPath, data, options);
  await staged.commit();
}

/**
 * Removes temp files a killed writer left behind (their process is gone). With `baseName`, only
 * those for that target. Returns the removed paths.
 */
export function removeStaleTempFiles(directory: string, baseName?: string): Promise<string[]> {
  return removeStaleTempFilesIn(directoryByPath(directory), baseName);
}

/** removeStaleTempFiles inside an opened folder; answers real paths. */
export async function removeStaleTempFilesIn(
  directory: WorkspaceDirectory,
  baseName?: string,
): Promise<string[]> {
  let entries: string[];
  try {
    entries = await fsp.readdir(directory.accessPath);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const parsed = parseTempName(entry);
    if (parsed === undefined) continue;
    if (baseName !== undefined && parsed.baseName !== baseName) continue;
    const { pid } = parsed;
    if (pid === process.pid || processIsAlive(pid)) continue;
    await fsp.rm(directory.entry(entry), { force: true });
    removed.push(path.join(directory.absolutePath, entry));
  }
  return removed;
}
