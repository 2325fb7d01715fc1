// The entries of one scope and KV shape, as this process last read them: each file's tokens are
// read once (its header), and a lookup re-lists the folder so entries other processes wrote count.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Token } from "node-llama-cpp";
import { readEntryHeader, type EntryHeader } from "./entry-file.ts";

export const ENTRY_SUFFIX = ".kv";

export interface CachedEntry {
  name: string;
  path: string;
  header: EntryHeader;
}

export class EntryDirectory {
  private readonly entries = new Map<string, CachedEntry>();

  constructor(
    readonly path: string,
    /** Called once for a file that is not a whole entry; it is removed. */
    private readonly onInvalid: (path: string, reason: string) => void,
  ) {}

  /** Every entry on disk now; files another process removed drop out, new ones are read. */
  async list(): Promise<CachedEntry[]> {
    let names: string[];
    try {
      names = (await readdir(this.path)).filter((name) => name.endsWith(ENTRY_SUFFIX));
    } catch {
      names = [];
    }
    const present = new Set(names);
    for (const name of this.entries.keys()) if (!present.has(name)) this.entries.delete(name);
    for (const name of names) {
      if (this.entries.has(name)) continue;
      const path = join(this.path, name);
      try {
        this.entries.set(name, { name, path, header: await readEntryHeader(path) });
      } catch (error) {
        await this.discard(path, error);
      }
    }
    return [...this.entries.values()];
  }

  /** Records an entry this process just wrote. */
  add(name: string, header: EntryHeader): void {
    this.entries.set(name, { name, path: join(this.path, name), header });
  }

  /** Removes a file that failed to read or to load (one log line). */
  async discard(path: string, error: unknown): Promise<void> {
    this.onInvalid(path, error instanceof Error ? error.message : String(error));
    await this.remove(path);
  }

  async remove(path: string): Promise<void> {
    for (const [name, entry] of this.entries) if (entry.path === path) this.entries.delete(name);
    await rm(path, { force: true });
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
 * The entry sharing the longest prefix with the prompt, at least `minimumShared` tokens; of
 * entries within `slack` tokens of the longest, the one holding fewest tokens (least to read).
 */
export function longestCachedPrefix(
  entries: readonly CachedEntry[],
  prompt: readonly Token[],
  minimumShared: number,
  slack = 16,
): { entry: CachedEntry; shared: number } | undefined {
  const matches = entries
    .map((entry) => ({ entry, shared: sharedPrefixLength(entry.header.tokens, prompt) }))
    .filter((match) => match.shared >= minimumShared);
  if (matches.length === 0) return undefined;
  const longest = Math.max(...matches.map((match) => match.shared));
  const near = matches.filter((match) => match.shared >= longest - slack);
  return near.reduce((best, match) =>
    match.entry.header.tokens.length < best.entry.header.tokens.length ? match : best,
  );
}
