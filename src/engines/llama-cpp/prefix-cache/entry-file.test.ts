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
    const read = await readEntryState(path, header);
    await read.verified;
    expect(read.state.equals(state)).toBe(true);
  });

  it("returns from a write the header a read gives back (the writer's own lookups use it)", async () => {
    const path = join(directory, "a.kv");
    const written = await writeEntryFile(path, "turn", tokens, state);
    expect(written).toEqual(await readEntryHeader(path));
    const read = await readEntryState(path, written);
    await read.verified;
    expect(read.state.equals(state)).toBe(true);
  });

  it("refuses a truncated file and a changed byte", async () => {
    const path = join(directory, "a.kv");
    await writeEntryFile(path, "turn", tokens, state);
    const bytes = await readFile(path);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10]! + 1) % 256;
    await writeFile(path, bytes);
    const header = await readEntryHeader(path);
    await expect((await readEntryState(path, header)).verified).rejects.toMatchObject({
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

  it("prefers the entry leaving the fewest prompt tokens to compute, unless it holds far more", () => {
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
      modifiedAt: 0,
    });
    const prompt = Array.from({ length: 1000 }, (_, index) => index) as Token[];
    // The system prompt's entry, and another conversation's turn sharing its first words too (a
    // warm session reuses those: so does a fresh process).
    const system = entry("system", prompt.slice(0, 900));
    const turn = entry("turn", [...prompt.slice(0, 913), ...Array<number>(20).fill(7)]);
    const other = entry("other", [5, 5]);
    expect(longestCachedPrefix([system, turn, other], prompt, 10)?.entry.name).toBe("turn");
    // A long conversation sharing 13 more tokens costs more to read than they cost to compute.
    const long = entry("long", [...prompt.slice(0, 913), ...Array<number>(1000).fill(7)]);
    expect(longestCachedPrefix([long, system], prompt, 10)?.entry.name).toBe("system");
    expect(longestCachedPrefix([other], prompt, 1)).toBeUndefined();
  });
});
