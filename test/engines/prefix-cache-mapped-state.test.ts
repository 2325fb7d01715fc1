// The native addon's mapFile, as the prefix cache reads a saved state with it: the mapped bytes are
// the file's at any offset (not only page-aligned ones), and a file cut short, a changed byte or a
// file gone are refused as the read path refuses them, so the entry is dropped and recomputed.
import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Token } from "node-llama-cpp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadGenerationLoop } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import {
  readEntryHeader,
  readEntryState,
  writeEntryFile,
} from "../../src/engines/llama-cpp/prefix-cache/entry-file.ts";

const loaded = loadGenerationLoop();
const mapFile = loaded.addon?.mapFile;
const missing =
  loaded.addon === undefined
    ? loaded.reason
    : mapFile === undefined
      ? "the built addon has no mapFile (rebuild: npm run build:native)"
      : undefined;
if (missing !== undefined) {
  if (process.env.CI === "true")
    throw new Error(`The mapped-state test must run in CI: ${missing}.`);
  console.warn(`Skipping the mapped-state test: ${missing}.`);
}

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "spark-mapped-"));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

// Longer than a page, and with a token list whose length puts the state at an unaligned offset.
const tokens = [1, 2, 3, 70_000, 5] as Token[];
const state = Buffer.from(Array.from({ length: 3 * 4096 + 123 }, (_, index) => (index * 7) % 251));

describe.skipIf(missing !== undefined)("a saved state mapped by the native addon", () => {
  it("gives the file's bytes at an unaligned offset, and they pass their checksum", async () => {
    const path = join(directory, "a.kv");
    const header = await writeEntryFile(path, "turn", tokens, state);
    expect(header.stateOffset % 4096).not.toBe(0);
    const read = await readEntryState(path, header, mapFile);
    await read.verified;
    expect(read.state.equals(state)).toBe(true);
    // Straight from the addon: a region in the middle of a page, and an empty one.
    const region = await mapFile!(path, header.stateOffset + 4000, 200);
    expect(region.equals(state.subarray(4000, 4200))).toBe(true);
    expect((await mapFile!(path, header.stateOffset, 0)).length).toBe(0);
  });

  it("refuses a file cut short after its header was read, a changed byte and a file gone", async () => {
    const path = join(directory, "a.kv");
    const header = await writeEntryFile(path, "turn", tokens, state);
    const bytes = await readFile(path);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10]! + 1) % 256;
    await writeFile(path, bytes);
    await expect((await readEntryState(path, header, mapFile)).verified).rejects.toMatchObject({
      code: "checksum_mismatch",
    });
    await truncate(path, bytes.length - 1);
    await expect(readEntryState(path, header, mapFile)).rejects.toMatchObject({
      code: "checksum_mismatch",
      message: expect.stringContaining("truncated state") as unknown,
    });
    await rm(path);
    await expect(readEntryState(path, header, mapFile)).rejects.toMatchObject({
      code: "checksum_mismatch",
      message: expect.stringContaining("cannot open") as unknown,
    });
    // A bad argument is a programming error, thrown at the call.
    expect(() => mapFile!(path, -1, 1)).toThrow("negative offset");
  });

  it("reads the same bytes mapped as read", async () => {
    const path = join(directory, "a.kv");
    const header = await writeEntryFile(path, "prefix", tokens, state);
    const [mapped, read] = await Promise.all([
      readEntryState(path, header, mapFile),
      readEntryState(path, await readEntryHeader(path)),
    ]);
    expect(mapped.state.equals(read.state)).toBe(true);
  });
});
