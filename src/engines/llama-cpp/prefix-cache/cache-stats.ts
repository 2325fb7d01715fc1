// The cache's counters, kept across processes in stats.json beside the entries (`spark doctor`
// shows the hit rate): each process adds what it counted when it flushes. Two processes flushing
// at once may lose one's counts; they are a report, not an account.
import { randomUUID } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

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
  try {
    const stored = JSON.parse(await readFile(join(directory, STATS_FILE), "utf8")) as Record<
      string,
      unknown
    >;
    for (const key of Object.keys(counters) as (keyof CacheCounters)[]) {
      const value = stored[key];
      if (typeof value === "number" && Number.isFinite(value)) counters[key] = value;
    }
  } catch {
    // None yet, or unreadable: start from zero.
  }
  return counters;
}

/** Adds `delta` to the stored counters (atomically replaced). */
export async function addCounters(directory: string, delta: CacheCounters): Promise<void> {
  if (Object.values(delta).every((value) => value === 0)) return;
  const stored = await readCounters(directory);
  for (const key of Object.keys(stored) as (keyof CacheCounters)[]) stored[key] += delta[key];
  const temporary = join(directory, `${STATS_FILE}.${randomUUID()}.tmp`);
  await writeFile(temporary, JSON.stringify(stored, null, 2) + "\n");
  await rename(temporary, join(directory, STATS_FILE));
}
