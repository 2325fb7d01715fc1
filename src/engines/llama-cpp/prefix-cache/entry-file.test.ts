// An entry file round-trips its kind, tokens and state; one cut short or with a changed byte is
// refused (checksum_mismatch), and eviction removes the least recently used files first.
import { mkdir, mkdtemp, readFile, rm, truncate, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Token } from "node-llama-cpp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { longestCachedPrefix, type CachedEntry } from "./entry-directory.ts";
import { readEntryHeader, readEntryState, writeEntryFile } from "./entry-file.ts";
import { evictEntries } from "./evict-entries.ts";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "spark-entry-"));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

const tokens = [1, 2, 3, 70_000] as Token[];
const state = Buffer.from(Array.from({ length: 9000 }, (_, index) => index % 251));

describe("prefix cache entry files", () => {
  it("round-trips kind, tokens and state", async () => {
    const path = join(directory, "a.kv");
    await writeEntryFile(path, "prefix", tokens, state);
    const header = await readEntryHeader(path);
    expect(header).toMatchObject({ kind: "prefix", tokens, stateBytes: state.length });
    expect((await readEntryState(path, header)).equals(state)).toBe(true);
  });

  it("refuses a truncated file and a changed byte", async () => {
    const path = join(directory, "a.kv");
    await writeEntryFile(path, "turn", tokens, state);
    const bytes = await readFile(path);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10]! + 1) % 256;
    await writeFile(path, bytes);
    const header = await readEntryHeader(path);
    await expect(readEntryState(path, header)).rejects.toMatchObject({
      code: "checksum_mismatch",
    });
    await truncate(path, bytes.length - 1);
    await expect(readEntryHeader(path)).rejects.toMatchObject({ code: "checksum_mismatch" });
  });

  it("evicts the least recently used entries until the rest fit the cap", async () => {
    const folder = join(directory, "local", "shape");
    await mkdir(folder, { recursive: true });
    const ages = { old: 3000, middle: 2000, recent: 1000 };
    for (const [name, age] of Object.entries(ages)) {
      const path = join(folder, `${name}.kv`);
      await writeEntryFile(path, "turn", tokens, state);
      const when = new Date(Date.now() - age * 1000);
      await utimes(path, when, when);
    }
    const size = (await readFile(join(folder, "old.kv"))).length;
    const removed = await evictEntries(directory, size * 2);
    expect(removed).toEqual([join(folder, "old.kv")]);
  });

  it("prefers the smallest of the entries sharing nearly the longest prefix", () => {
    const entry = (name: string, list: number[]): CachedEntry => ({
      name,
      path: name,
      header: {
        kind: "turn",
        tokens: list as Token[],
        stateBytes: 0,
        stateCrc32: 0,
        stateOffset: 0,
      },
    });
    const prompt = Array.from({ length: 100 }, (_, index) => index) as Token[];
    const system = entry("system", prompt.slice(0, 90));
    const turn = entry("turn", [...prompt.slice(0, 95), 7, 7, 7]);
    const other = entry("other", [5, 5]);
    expect(longestCachedPrefix([turn, system, other], prompt, 10)?.entry.name).toBe("system");
    expect(longestCachedPrefix([turn, system], prompt, 10, 2)?.entry.name).toBe("turn");
    expect(longestCachedPrefix([other], prompt, 1)).toBeUndefined();
  });
});
