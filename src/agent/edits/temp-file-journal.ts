// Remembers the temp files this process writes, so none outlives it: its own are removed when it
// exits, and the next Spark session removes those of a writer that was killed (SIGKILL, power
// loss), wherever in the workspace they are, without walking it.
import fs, { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseTempName, processIsAlive } from "./temp-file-name.ts";

const inFlight = new Set<string>();
let exitHookInstalled = false;

/** One folder per user in the temp folder: `<pid>.list` files, one temp path a line. */
export function tempJournalDirectory(): string {
  return path.join(os.tmpdir(), `spark-temp-files-${process.getuid?.() ?? "user"}`);
}

function journalOf(pid: number): string {
  return path.join(tempJournalDirectory(), `${pid}.list`);
}

/** The folder is trusted only if it is ours alone: a folder, not a link, no access for others. */
function journalIsTrusted(directory: string): boolean {
  try {
    const stats = fs.lstatSync(directory);
    const uid = process.getuid?.();
    // Windows has no owner ids or mode bits to check; its temp folder is per user already.
    if (uid === undefined) return stats.isDirectory();
    return stats.isDirectory() && stats.uid === uid && (stats.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

function removeOwnTempFiles(): void {
  for (const tempPath of inFlight) fs.rmSync(tempPath, { force: true });
  inFlight.clear();
  fs.rmSync(journalOf(process.pid), { force: true });
}

/** Called before the temp file is created; best effort, a journal failure never fails an edit. */
export async function recordTempFile(tempPath: string): Promise<void> {
  inFlight.add(tempPath);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Runs on process.exit (a second Ctrl-C) and on normal exit; SIGKILL is for the next session.
    process.once("exit", removeOwnTempFiles);
  }
  const directory = tempJournalDirectory();
  try {
    await fsp.mkdir(directory, { recursive: true, mode: 0o700 });
    if (journalIsTrusted(directory)) await fsp.appendFile(journalOf(process.pid), `${tempPath}\n`);
  } catch {
    // Without a journal a leftover is still removed by the next write to the same folder.
  }
}

/** Called once the temp file is renamed over its target or removed. */
export function forgetTempFile(tempPath: string): void {
  inFlight.delete(tempPath);
}

/**
 * Removes temp files listed by writers that are gone, and their journals. Only paths whose name
 * is a Spark temp name carrying that writer's pid are touched. Returns the removed paths.
 */
export async function removeTempFilesOfDeadWriters(): Promise<string[]> {
  const directory = tempJournalDirectory();
  if (!journalIsTrusted(directory)) return [];
  const removed: string[] = [];
  for (const entry of await fsp.readdir(directory).catch(() => [])) {
    const pid = Number(/^(\d+)\.list$/.exec(entry)?.[1]);
    if (!Number.isSafeInteger(pid) || pid === process.pid || processIsAlive(pid)) continue;
    const journal = path.join(directory, entry);
    const listed = await fsp.readFile(journal, "utf8").catch(() => "");
    for (const tempPath of new Set(listed.split("\n"))) {
      if (!path.isAbsolute(tempPath) || parseTempName(path.basename(tempPath))?.pid !== pid)
        continue;
      if (!fs.existsSync(tempPath)) continue;
      await fsp.rm(tempPath, { force: true });
      removed.push(tempPath);
    }
    await fsp.rm(journal, { force: true });
  }
  return removed;
}
