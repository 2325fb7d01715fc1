// Small JSON records in the cache folder (`[cache]`: the prefix cache's stats, `auto`'s remembered
// GPU refusal, the remembered chat wrappers): read whole or not at all, and replaced by writing a
// temporary file beside the record and renaming it over, so a reader sees the old record or the
// new one, never half of either.
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** The record's parsed JSON, or undefined when it is missing or does not parse. */
export async function readCacheRecord(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/** Replaces the record with `value` (its folder created if needed); rejects when it cannot. */
export async function writeCacheRecord(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, JSON.stringify(value, null, 2) + "\n");
  await rename(temporary, path);
}
