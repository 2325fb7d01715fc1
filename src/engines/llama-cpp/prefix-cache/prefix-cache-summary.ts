// What `spark doctor` shows of the prefix cache: its size and entries on disk now, and the hit rate
// the processes that used it counted (stats.json).
import { join } from "node:path";
import { readCounters, type CacheCounters } from "./cache-stats.ts";
import { listCacheFiles } from "./evict-entries.ts";
import { PREFIX_FOLDER } from "./prefix-cache.ts";

export interface PrefixCacheSummary {
  entries: number;
  bytes: number;
  counters: CacheCounters;
  /** hits / lookups; null before the first lookup. */
  hitRate: number | null;
}

export async function summarizePrefixCache(directory: string): Promise<PrefixCacheSummary> {
  const files = await listCacheFiles(join(directory, PREFIX_FOLDER));
  const counters = await readCounters(directory);
  return {
    entries: files.length,
    bytes: files.reduce((sum, file) => sum + file.bytes, 0),
    counters,
    hitRate: counters.lookups === 0 ? null : counters.hits / counters.lookups,
  };
}
