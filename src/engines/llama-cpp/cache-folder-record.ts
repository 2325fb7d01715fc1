// Small JSON records in the cache folder (`[cache]`: the prefix cache's stats, `auto`'s remembered
// GPU refusal, the remembered chat wrappers and open plans): read whole or not at all, and replaced
// by writing a temporary file beside the record and renaming it over, so a reader sees the old
// record or the new one, never half of either. What an open learns of a model is keyed by the
// model file's identity and the installed node-llama-cpp (modelRecordKey).
import { createHash, randomUUID } from "node:crypto";
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

/** Where what an open learns of a model is remembered: the cache folder, the model file's identity. */
export interface ModelMemory {
  cacheDirectory: string;
  /** modelFileIdentity() of the model, read once as the engine opens; undefined if unreadable. */
  modelIdentity: Promise<string | undefined>;
}

/**
 * A record's key for a model file under the installed node-llama-cpp (and `settings`, what else the
 * learned thing depends on); undefined when either is unknown.
 */
export async function modelRecordKey(
  modelIdentity: Promise<string | undefined>,
  settings?: string,
): Promise<string | undefined> {
  const [version, identity] = await Promise.all([nodeLlamaCppVersion(), modelIdentity]);
  if (version === undefined || identity === undefined) return undefined;
  const text = `${version}\n${identity}${settings === undefined ? "" : `\n${settings}`}`;
  return createHash("sha256").update(text).digest("hex");
}

let installedVersion: Promise<string | undefined> | undefined;

/**
 * The installed node-llama-cpp's version (its package.json, beside dist/), if it can be read; read
 * once per process (the records' keys, spark doctor).
 */
export function nodeLlamaCppVersion(): Promise<string | undefined> {
  installedVersion ??= (async () => {
    try {
      const manifest = new URL("../package.json", import.meta.resolve("node-llama-cpp"));
      const { version } = JSON.parse(await readFile(manifest, "utf8")) as { version?: unknown };
      return typeof version === "string" ? version : undefined;
    } catch {
      return undefined;
    }
  })();
  return installedVersion;
}
