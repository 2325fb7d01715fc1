// The embedded engine's prefix cache on disk: before a request's job, the longest cached prefix of
// its prompt (of its scope, model and KV shape) is loaded into the sequence instead of computed;
// after the system prompt and tools, and after each finished turn, the sequence's state is copied
// (on the native loop's decode thread, or by node-llama-cpp under its evaluation lock) and written
// in the background (a serial queue, never before a token).
import { existsSync } from "node:fs";
import { mkdir, utimes } from "node:fs/promises";
import { join } from "node:path";
import type { Token } from "node-llama-cpp";
import type { MapFile } from "../native-loop/generation-loop-addon.ts";
import type { NativeSequence } from "../native-loop/native-sequence.ts";
import type { CachedSequence } from "./cached-sequence.ts";
import type { SequencePool } from "../sequence-pool.ts";
import { addCounters, emptyCounters, type CacheCounters } from "./cache-stats.ts";
import {
  ENTRY_SUFFIX,
  EntryDirectory,
  type CachedEntry,
  longestCachedPrefix,
  sharedPrefixLength,
} from "./entry-directory.ts";
import { readEntryState, writeEntryFile, type EntryKind } from "./entry-file.ts";
import { evictEntries } from "./evict-entries.ts";
import { kvShapeKey, scopeKey, tokensKey, type KvShape } from "./prefix-cache-key.ts";
import { loadWhereLastLeftOff } from "./warm-start.ts";

export interface PrefixCacheSettings {
  /** The cache folder (`[cache] directory`; default ~/.spark/cache). */
  directory: string;
  /** Its cap (`[cache] max_bytes`); the least recently used entries go first. */
  maxBytes: number;
  /** Shorter prefixes are not worth a file: computing them costs less than reading one. */
  minimumTokens?: number;
  /** One line per truncated or corrupt file removed; default: stderr. */
  onNotice?: (line: string) => void;
  /** Called once the engine's load as it opened ended: the tokens it loaded (0: none). */
  onWarmStart?: (tokens: number) => void;
}

/** The entries live under <directory>/prefix/<scope>/<kv shape>/. */
export const PREFIX_FOLDER = "prefix";
const DEFAULT_MINIMUM_TOKENS = 64;
/**
 * States copied and waiting for their write; beyond them the oldest waiting turn is dropped (a
 * later turn of a conversation holds it), so memory stays bounded and the newest turn is kept.
 */
const MAX_WAITING_WRITES = 2;
/**
 * A lookup uses the folder's listing started as its request arrived when it is this recent (ms):
 * a second readdir cost a fresh process ~3 ms before its first token. An entry another process
 * wrote since is missed (computed instead) and one it removed since is skipped without a notice.
 */
const RECENT_LISTING_MS = 1_000;
/**
 * A lookup while this process's own saves are still being written waits for them this long at
 * most (ms): a second conversation right after the first (a new TUI session, another client of
 * the gateway) found no entry and computed the whole prompt again while its file was landing.
 */
const PENDING_WRITES_WAIT_MS = 1_000;

interface WaitingWrite {
  directory: EntryDirectory;
  kind: EntryKind;
  saving: Promise<{ tokens: Token[]; state: Buffer }>;
}

export class PrefixCache {
  private readonly directories = new Map<string, EntryDirectory>();
  private readonly shapeKey: string;
  private readonly minimumTokens: number;
  private readonly notice: (line: string) => void;
  private writes: Promise<void> = Promise.resolve();
  private readonly waiting: WaitingWrite[] = [];
  private counters: CacheCounters = emptyCounters();
  /** Tokens loaded into a sequence as the engine opened, until a request reuses them. */
  private readonly loadedAtOpen = new WeakMap<CachedSequence, number>();
  /** The load as the engine opened (dispose waits for it). */
  private opening: Promise<void> = Promise.resolve();

  constructor(
    private readonly settings: PrefixCacheSettings,
    shape: KvShape,
    /** Maps a saved state instead of reading it into a new Buffer (the native addon's). */
    private readonly mapFile?: MapFile,
  ) {
    this.shapeKey = kvShapeKey(shape);
    this.minimumTokens = settings.minimumTokens ?? DEFAULT_MINIMUM_TOKENS;
    this.notice =
      settings.onNotice ?? ((line) => process.stderr.write(`spark: prefix cache: ${line}\n`));
  }

  private directoryFor(scope: string | undefined): EntryDirectory {
    const path = join(this.settings.directory, PREFIX_FOLDER, scopeKey(scope), this.shapeKey);
    let directory = this.directories.get(path);
    if (directory === undefined) {
      directory = new EntryDirectory(path, (file, reason) => {
        this.counters.entriesInvalid += 1;
        this.notice(`removed ${file}: ${reason}`);
      });
      this.directories.set(path, directory);
    }
    return directory;
  }

  /**
   * Loads the longest cached prefix of `prompt` into the sequence when it holds more of the prompt
   * than the sequence's own cache; returns how many prompt tokens the next job reuses from it (0:
   * nothing loaded). A file that fails to read or load is removed, and the prompt is computed.
   */
  async restore(
    sequence: CachedSequence,
    prompt: readonly Token[],
    scope: string | undefined,
  ): Promise<number> {
    // At least one prompt token is always evaluated: its logits give the first sample.
    const usable = prompt.length - 1;
    const inMemory = sequence.sharedPrefixLength(prompt);
    // What the engine loaded into this sequence as it opened counts as read from disk, once.
    const loadedAtOpen = (): number => this.claimLoadedAtOpen(sequence, Math.min(inMemory, usable));
    if (usable - inMemory < this.minimumTokens) return loadedAtOpen();
    this.counters.lookups += 1;
    await this.writtenOrLater(PENDING_WRITES_WAIT_MS);
    const directory = this.directoryFor(scope);
    const entries = (await directory.listRecent(RECENT_LISTING_MS)).filter(
      (entry) => entry.header.tokens.length <= sequence.contextSize,
    );
    const match = longestCachedPrefix(entries, prompt, inMemory + this.minimumTokens);
    if (match === undefined) return loadedAtOpen();
    this.loadedAtOpen.delete(sequence);
    if (!(await this.load(sequence, directory, match.entry))) return 0;
    const loaded = Math.min(match.shared, usable);
    this.counters.hits += 1;
    this.counters.tokensLoaded += loaded;
    return loaded;
  }

  /**
   * As the engine opens: loads what the last process left off with (its newest short turn, or its
   * system prefix; see warm-start.ts) into a free sequence of `pool`, so the first request finds
   * it in memory, or waits for a load that overlapped its prompt's rendering. Counted as read from
   * disk by the first request that reuses it. `copying`: the state is mapped and its copy queued on
   * the decode thread (or there is nothing to load).
   */
  loadWhereLastLeftOff(
    pool: SequencePool<NativeSequence>,
    scope: string | undefined,
  ): { copying: Promise<void> } {
    const directory = this.directoryFor(scope);
    let copying: () => void = () => {};
    const queued = new Promise<void>((resolve) => (copying = resolve));
    const loading = loadWhereLastLeftOff(directory, pool, scope, {
      entries: () => directory.listRecent(RECENT_LISTING_MS),
      load: (sequence, directory, entry) => this.load(sequence, directory, entry, copying),
      loaded: (sequence, tokens) => this.loadedAtOpen.set(sequence, tokens),
    });
    this.opening = loading.then((tokens) => this.settings.onWarmStart?.(tokens));
    return { copying: Promise.race([queued, this.opening]) };
  }

  /** Resolves once the load as the engine opened ended (loaded, nothing to load, or failed). */
  warmStartEnded(): Promise<void> {
    return this.opening;
  }

  /** What was loaded into `sequence` as the engine opened and `reused` of it, once: then 0. */
  private claimLoadedAtOpen(sequence: CachedSequence, reused: number): number {
    const tokens = this.loadedAtOpen.get(sequence);
    if (tokens === undefined) return 0;
    this.loadedAtOpen.delete(sequence);
    const credited = Math.min(tokens, reused);
    if (credited > 0) {
      this.counters.lookups += 1;
      this.counters.hits += 1;
      this.counters.tokensLoaded += credited;
    }
    return credited;
  }

  /**
   * Reads an entry's state into the sequence; false (the sequence then holds nothing) when it
   * fails to read or load: the file is removed with a notice, or forgotten when another process
   * evicted it since the listing.
   */
  private async load(
    sequence: CachedSequence,
    directory: EntryDirectory,
    entry: CachedEntry,
    /** Called once the copy is queued on the decode thread (the state is mapped). */
    copying?: () => void,
  ): Promise<boolean> {
    try {
      const { state, verified } = await readEntryState(entry.path, entry.header, this.mapFile);
      // llama.cpp copies the state in on the decode thread while this thread checks its checksum.
      const restoring = sequence.restoreState(entry.header.tokens, state);
      copying?.();
      const [restored, checked] = await Promise.allSettled([restoring, verified]);
      if (restored.status === "rejected") throw restored.reason;
      if (checked.status === "rejected") {
        // What was copied in is not the state that was saved: the job computes the prompt.
        await sequence.forget();
        throw checked.reason;
      }
    } catch (error) {
      // Evicted by another process since the listing: nothing wrong with it, nothing to say.
      if (!existsSync(entry.path)) directory.forget(entry.path);
      else await directory.discard(entry.path, error);
      return false;
    }
    const now = new Date();
    // The file's time is its place in the eviction order.
    void utimes(entry.path, now, now).catch(() => {});
    return true;
  }

  /**
   * Starts reading the scope's entries (their headers and tokens) so that the lookup after a
   * prompt renders finds them read: the engine calls it as it opens and as a request arrives.
   */
  prefetch(scope: string | undefined): Promise<void> {
    return this.directoryFor(scope)
      .list()
      .then(
        () => {},
        () => {},
      );
  }

  /** Whether an entry holding exactly these tokens exists (then saving them again is pointless). */
  async holds(tokens: readonly Token[], scope: string | undefined): Promise<boolean> {
    const name = tokensKey(tokens) + ENTRY_SUFFIX;
    return (await this.directoryFor(scope).list()).some((entry) => entry.name === name);
  }

  /**
   * Saves what the sequence holds now (call between jobs, before its lease goes: the copy is
   * queued ahead of any later job on it) and writes it in the background.
   */
  save(sequence: CachedSequence, scope: string | undefined, kind: EntryKind): void {
    if (sequence.cachedTokens.length < this.minimumTokens) return;
    let saving: Promise<{ tokens: Token[]; state: Buffer }>;
    try {
      saving = sequence.saveState(Math.floor(this.settings.maxBytes / 2));
    } catch {
      return;
    }
    // Too large for the cap, or the engine went away: that state is simply not cached.
    saving.catch(() => {});
    this.waiting.push({ directory: this.directoryFor(scope), kind, saving });
    if (this.waiting.length > MAX_WAITING_WRITES) {
      const dropped = this.waiting.findIndex((write) => write.kind === "turn");
      this.waiting.splice(dropped === -1 ? 0 : dropped, 1);
    }
    this.enqueue(async () => {
      const next = this.waiting.shift();
      if (next === undefined) return;
      const { tokens, state } = await next.saving;
      await this.write(next.directory, next.kind, tokens, state);
    });
  }

  /** The queued writes (at once when there are none), or `milliseconds`, whichever ends first. */
  private async writtenOrLater(milliseconds: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.writes,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, milliseconds))),
    ]);
    clearTimeout(timer);
  }

  private async write(
    directory: EntryDirectory,
    kind: EntryKind,
    tokens: Token[],
    state: Buffer,
  ): Promise<void> {
    const name = tokensKey(tokens) + ENTRY_SUFFIX;
    const entries = await directory.list();
    if (entries.some((entry) => entry.name === name)) return;
    await mkdir(directory.path, { recursive: true });
    const path = join(directory.path, name);
    directory.add(name, await writeEntryFile(path, kind, tokens, state));
    this.counters.entriesWritten += 1;
    // A turn's entry holds every earlier turn of its conversation: those are superseded.
    if (kind === "turn") {
      for (const entry of entries) {
        const earlier = entry.header.tokens;
        if (
          entry.header.kind === "turn" &&
          earlier.length < tokens.length &&
          sharedPrefixLength(earlier, tokens) === earlier.length
        )
          await directory.remove(entry.path);
      }
    }
    const evicted = await evictEntries(
      join(this.settings.directory, PREFIX_FOLDER),
      this.settings.maxBytes,
    );
    this.counters.entriesEvicted += evicted.length;
    await this.persistCounters();
  }

  private enqueue(task: () => Promise<void>): void {
    this.writes = this.writes.then(task).catch(() => {});
  }

  private async persistCounters(): Promise<void> {
    const delta = this.counters;
    this.counters = emptyCounters();
    try {
      await mkdir(this.settings.directory, { recursive: true });
      await addCounters(this.settings.directory, delta);
    } catch {
      // A read-only cache folder: the counters are a report only.
    }
  }

  /** Waits for every queued write and stores the counters (the engine's dispose calls it). */
  async flush(): Promise<void> {
    await this.opening;
    this.enqueue(() => this.persistCounters());
    await this.writes;
  }
}
