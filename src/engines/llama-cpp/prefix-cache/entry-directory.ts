// The entries of one scope and KV shape, as this process last read them: each file's tokens are
// read once (its header), and a lookup re-lists the folder so entries other processes wrote count.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Token } from "node-llama-cpp";
import { readEntryHeaderAndTime, type EntryHeader } from "./entry-file.ts";

export const ENTRY_SUFFIX = ".kv";

export interface CachedEntry {
  name: string;
  path: string;
  header: EntryHeader;
  /** When the file was written or last loaded, as this process last read it (ms since epoch). */
  modifiedAt: number;
}

export class EntryDirectory {
  private readonly entries = new Map<string, CachedEntry>();
  private listing: Promise<CachedEntry[]> | undefined;
  /** When the last listing started (performance.now()). */
  private listedAt: number | undefined;

  constructor(
    readonly path: string,
    /** Called once for a file that is not a whole entry; it is removed. */
    private readonly onInvalid: (path: string, reason: string) => void,
  ) {}

  /**
   * Every entry on disk now; files another process removed drop out, new ones are read. Calls
   * while a listing runs share it (the engine starts one as it opens and as a request renders).
   */
  list(): Promise<CachedEntry[]> {
    if (this.listing === undefined) {
      this.listedAt = performance.now();
      this.listing = this.read().finally(() => (this.listing = undefined));
    }
    return this.listing;
  }

  /**
   * The entries as a listing started within `maxAgeMs` found them (the one a request starts as it
   * arrives, so its lookup after the prompt renders waits for no second readdir), with this
   * process's own writes since; else a new listing's.
   */
  async listRecent(maxAgeMs: number): Promise<CachedEntry[]> {
    if (this.listing !== undefined) return this.listing;
    if (this.listedAt !== undefined && performance.now() - this.listedAt <= maxAgeMs)
      return [...this.entries.values()];
    return this.list();
  }

  private async read(): Promise<CachedEntry[]> {
    let names: string[];
    try {
      names = (await readdir(this.path)).filter((name) => name.endsWith(ENTRY_SUFFIX));
    } catch {
      names = [];
    }
    const present = new Set(names);
    for (const name of this.entries.keys()) if (!present.has(name)) this.entries.delete(name);
    // All at once: each file's reads are round trips to the thread pool, and a fresh process
    // lists the folder on the way to its first token.
    await Promise.all(
      names
        .filter((name) => !this.entries.has(name))
        .map(async (name) => {
          const path = join(this.path, name);
          try {
            this.entries.set(name, { name, path, ...(await readEntryHeaderAndTime(path)) });
          } catch (error) {
            await this.discard(path, error);
          }
        }),
    );
    return [...this.entries.values()];
  }

  /** Records an entry this process just wrote. */
  add(name: string, header: EntryHeader): void {
    this.entries.set(name, { name, path: join(this.path, name), header, modifiedAt: Date.now() });
  }

  /** Removes a file that failed to read or to load (one log line). */
  async discard(path: string, error: unknown): Promise<void> {
    this.onInvalid(path, error instanceof Error ? error.message : String(error));
    await this.remove(path);
  }

  async remove(path: string): Promise<void> {
    this.forget(path);
    await rm(path, { force: true });
  }

  /** Drops a file another process removed from this process's view. */
  forget(path: string): void {
    for (const [name, entry] of this.entries) if (entry.path === path) this.entries.delete(name);
  }
}

/** How many leading tokens two lists share. */
export function sharedPrefixLength(left: readonly Token[], right: readonly Token[]): number {
  const limit = Math.min(left.length, right.length);
  let index = 0;
  while (index < limit && left[index] === right[index]) index += 1;
  return index;
}

/**
 * Reading a token's saved state costs this many times less than computing it (CPU prefill of the
 * test shapes: 0.5 ms vs ~4 µs a token on tiny, ~10 ms vs ~10 µs on 0.5B; a GPU narrows it, hence
 * the margin): an entry holding a few more prompt tokens is worth reading, one holding thousands
 * of tokens the prompt does not share is not.
 */
export const READ_TOKENS_PER_COMPUTED_TOKEN = 32;

/**
 * The entry that brings the prompt's first token soonest, sharing at least `minimumShared` tokens:
 * the fewest prompt tokens left to compute, each token the entry holds counting as
 * 1/READ_TOKENS_PER_COMPUTED_TOKEN of one (it is read whether the prompt shares it or not).
 */
export function longestCachedPrefix(
  entries: readonly CachedEntry[],
  prompt: readonly Token[],
  minimumShared: number,
): { entry: CachedEntry; shared: number } | undefined {
  const cost = (match: { entry: CachedEntry; shared: number }): number =>
    prompt.length -
    match.shared +
    match.entry.header.tokens.length / READ_TOKENS_PER_COMPUTED_TOKEN;
  const matches = entries
    .map((entry) => ({ entry, shared: sharedPrefixLength(entry.header.tokens, prompt) }))
    .filter((match) => match.shared >= minimumShared);
  if (matches.length === 0) return undefined;
  return matches.reduce((best, match) => (cost(match) < cost(best) ? match : best));
}
