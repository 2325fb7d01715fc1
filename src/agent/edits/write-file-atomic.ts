// Crash-safe file replacement: write a temp file beside the target, fsync it, then rename it over
// the target, so a reader (or a crash) only ever sees the old bytes or the new ones.
import { promises as fsp } from "node:fs";
import path from "node:path";
import { SparkError } from "../../protocol/spark-error.ts";
import { forgetTempFile, recordTempFile } from "./temp-file-journal.ts";
import { parseTempName, processIsAlive, tempPathFor } from "./temp-file-name.ts";

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

/** Writes and syncs a temp file beside the target without touching the target yet. */
export async function stageFile(
  targetPath: string,
  data: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<StagedFile> {
  throwIfAborted(options.signal);
  await removeStaleTempFiles(path.dirname(targetPath));
  const tempPath = tempPathFor(targetPath);
  const discard = async () => {
    await fsp.rm(tempPath, { force: true });
    forgetTempFile(tempPath);
  };
  await recordTempFile(tempPath);
  try {
    const handle = await fsp.open(tempPath, "wx", options.mode ?? 0o666);
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
      await fsp.rename(tempPath, targetPath);
    } catch (error) {
      await discard();
      throw error;
    }
    forgetTempFile(tempPath);
    await syncDirectory(path.dirname(targetPath));
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

/** Makes a rename or unlink durable; some platforms cannot open folders, which is harmless. */
export async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await fsp.open(directory, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability of the folder entry is best effort; the data itself was already synced.
  }
}

/**
 * Removes temp files a killed writer left behind (their process is gone). With `baseName`, only
 * those for that target. Returns the removed paths.
 */
export async function removeStaleTempFiles(
  directory: string,
  baseName?: string,
): Promise<string[]> {
  let entries: string[];
  try {
    entries = await fsp.readdir(directory);
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
    const stale = path.join(directory, entry);
    await fsp.rm(stale, { force: true });
    removed.push(stale);
  }
  return removed;
}
