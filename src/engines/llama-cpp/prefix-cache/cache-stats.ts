// The cache's counters, kept across processes in stats.json beside the entries (`spark doctor`
// shows the hit rate): each process adds what it counted when it flushes. Two processes flushing
// at once may lose one's counts; they are a report, not an account.
import { join } from "node:path";
import { readCacheRecord, writeCacheRecord } from "../cache-folder-record.ts";

export interface CacheCounters {
  /** Requests that looked for a cached prefix. */
  lookups: number;
  /** Of those, how many loaded one. */
  hits: number;
  /** Prompt tokens loaded from disk instead of computed. */
  tokensLoaded: number;
  entriesWritten: number;
  entriesEvicted: number;
  /** Truncated or corrupt files removed. */
  entriesInvalid: number;
}

export const STATS_FILE = "stats.json";

export function emptyCounters(): CacheCounters {
  return {
    lookups: 0,
    hits: 0,
    tokensLoaded: 0,
    entriesWritten: 0,
    entriesEvicted: 0,
    entriesInvalid: 0,
  };
}

export async function readCounters(directory: string): Promise<CacheCounters> {
  const counters = emptyCounters();
  // None yet, or unreadable: start from zero.
  const stored = await readCacheRecord(join(directory, STATS_FILE));
  if (typeof stored !== "object" || stored === null) return counters;
  for (const key of Object.keys(counters) as (keyof CacheCounters)[]) {
    const value = (stored as Record<string, unknown>)[key];
    if (typeof value === "number" && Number.isFinite(value)) counters[key] = value;
  }
  return counters;
}

/** Adds `delta` to the stored counters (atomically replaced). */
export async function addCounters(directory: string, delta: CacheCounters): Promise<void> {
  if (Object.values(delta).every((value) => value === 0)) return;
  const stored = await readCounters(directory);
  for (const key of Object.keys(stored) as (keyof CacheCounters)[]) stored[key] += delta[key];
  await writeCacheRecord(join(directory, STATS_FILE), stored);
}
