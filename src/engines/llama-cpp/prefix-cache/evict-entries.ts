// Keeps the cache folder under its cap: every entry of every scope and model counts, the least
// recently used (a load touches its file) go first; temporary files a crash left are removed.
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { ENTRY_SUFFIX } from "./entry-directory.ts";

/** A write still in progress is younger than this. */
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

export interface CacheFile {
  path: string;
  bytes: number;
  lastUsedMs: number;
}

/** Every entry file under `prefixDirectory` (<scope>/<kv shape>/<tokens>.kv). */
export async function listCacheFiles(prefixDirectory: string): Promise<CacheFile[]> {
  const files: CacheFile[] = [];
  const now = Date.now();
  for (const scope of await namesIn(prefixDirectory)) {
    for (const shape of await namesIn(join(prefixDirectory, scope))) {
      const folder = join(prefixDirectory, scope, shape);
      for (const name of await namesIn(folder)) {
        const path = join(folder, name);
        const info = await stat(path).catch(() => undefined);
        if (info === undefined || !info.isFile()) continue;
        if (name.endsWith(".tmp")) {
          if (now - info.mtimeMs > STALE_TEMPORARY_MS) await rm(path, { force: true });
          continue;
        }
        if (name.endsWith(ENTRY_SUFFIX))
          files.push({ path, bytes: info.size, lastUsedMs: info.mtimeMs });
      }
    }
  }
  return files;
}

/** Removes the least recently used entries until the rest fit `maxBytes`; returns the paths. */
export async function evictEntries(prefixDirectory: string, maxBytes: number): Promise<string[]> {
  const files = await listCacheFiles(prefixDirectory);
  let total = files.reduce((sum, file) => sum + file.bytes, 0);
  const removed: string[] = [];
  for (const file of files.sort((left, right) => left.lastUsedMs - right.lastUsedMs)) {
    if (total <= maxBytes) break;
    await rm(file.path, { force: true });
    total -= file.bytes;
    removed.push(file.path);
  }
  return removed;
}

async function namesIn(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch {
    return [];
  }
}
