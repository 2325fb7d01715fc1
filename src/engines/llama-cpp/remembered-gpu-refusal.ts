// `gpu: auto`'s refusal of a software GPU, remembered across processes: the probe behind it forks
// node-llama-cpp's binary test and starts the GPU backend (Vulkan on Mesa's lavapipe: ~0.7 s and
// ~0.6 s of CPU a start). Kept in the cache folder under a key of everything that could change the
// answer; a record that does not match, or cannot be read, is ignored and the backend probed.
import { readdir, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import type { LlamaGpuType } from "node-llama-cpp";
import { nodeLlamaCppVersion, readCacheRecord, writeCacheRecord } from "./cache-folder-record.ts";

/** The record's file in the cache folder (beside prefix/, which holds the prefix cache). */
export const GPU_REFUSAL_FILE = "llama-backend.json";
const RECORD_VERSION = 1;

/** One refusal with the binding file node-llama-cpp loaded for it (a new binary probes again). */
export interface ProbedRefusal {
  gpu: Exclude<LlamaGpuType, false>;
  devices: string[];
  reason: string;
  bindingPath: string;
}

interface RefusalRecord {
  version: number;
  key: string;
  refused: ProbedRefusal[];
}

/**
 * Environment variables that change which Vulkan drivers the loader reads or which devices ggml
 * uses: with another value the same machine may answer differently.
 */
const ENVIRONMENT_KEYS = [
  "VK_ICD_FILENAMES",
  "VK_DRIVER_FILES",
  "VK_ADD_DRIVER_FILES",
  "VK_LOADER_DRIVERS_SELECT",
  "VK_LOADER_DRIVERS_DISABLE",
  "GGML_VK_VISIBLE_DEVICES",
  "CUDA_VISIBLE_DEVICES",
] as const;

export function gpuRefusalPath(cacheDirectory: string): string {
  return join(cacheDirectory, GPU_REFUSAL_FILE);
}

/** The refusals remembered for this machine as it is now, or undefined (then probe). */
export async function readRememberedRefusal(
  cacheDirectory: string,
): Promise<ProbedRefusal[] | undefined> {
  const record = await readRecord(cacheDirectory);
  if (record === undefined) return undefined;
  const key = await refusalKey(record.refused.map((refusal) => refusal.bindingPath));
  if (key !== record.key) return undefined;
  return record.refused;
}

/** Writes the record atomically (a reader sees the old file or the new); never throws. */
export async function rememberRefusal(
  cacheDirectory: string,
  refused: ProbedRefusal[],
): Promise<void> {
  try {
    const key = await refusalKey(refused.map((refusal) => refusal.bindingPath));
    const record: RefusalRecord = { version: RECORD_VERSION, key, refused };
    await writeCacheRecord(gpuRefusalPath(cacheDirectory), record);
  } catch {
    // A cache folder that cannot be written (read-only, missing): the next start probes again.
  }
}

/** Removes the record: a probe found nothing to refuse. Never throws. */
export async function forgetRefusal(cacheDirectory: string): Promise<void> {
  await rm(gpuRefusalPath(cacheDirectory), { force: true }).catch(() => undefined);
}

async function readRecord(cacheDirectory: string): Promise<RefusalRecord | undefined> {
  const parsed = await readCacheRecord(gpuRefusalPath(cacheDirectory));
  return isRecord(parsed) ? parsed : undefined;
}

function isRecord(value: unknown): value is RefusalRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Partial<RefusalRecord>;
  return (
    record.version === RECORD_VERSION &&
    typeof record.key === "string" &&
    Array.isArray(record.refused) &&
    record.refused.length > 0 &&
    record.refused.every(isRefusal)
  );
}

const GPU_TYPES: readonly Exclude<LlamaGpuType, false>[] = ["cuda", "vulkan", "metal"];

function isRefusal(value: unknown): value is ProbedRefusal {
  if (typeof value !== "object" || value === null) return false;
  const refusal = value as Partial<ProbedRefusal>;
  return (
    GPU_TYPES.includes(refusal.gpu as Exclude<LlamaGpuType, false>) &&
    Array.isArray(refusal.devices) &&
    refusal.devices.every((device) => typeof device === "string") &&
    typeof refusal.reason === "string" &&
    typeof refusal.bindingPath === "string"
  );
}

/**
 * What the answer depends on: node-llama-cpp and the binding files it loaded, the Vulkan driver
 * manifests the loader would read, the device nodes (a GPU plugged in) and the environment that
 * selects drivers and devices. Only `gpu = "auto"` refuses, so the setting is always that one.
 */
export async function refusalKey(bindingPaths: readonly string[]): Promise<string> {
  const [nodeLlamaCpp, bindings, drivers, deviceNodes] = await Promise.all([
    nodeLlamaCppVersion(),
    Promise.all(bindingPaths.map(fileIdentity)),
    vulkanDriverManifests(process.env),
    gpuDeviceNodes(),
  ]);
  const environment = Object.fromEntries(ENVIRONMENT_KEYS.map((name) => [name, process.env[name]]));
  return JSON.stringify({
    gpu: "auto",
    platform: `${process.platform}-${process.arch}`,
    nodeLlamaCpp,
    bindings,
    drivers,
    deviceNodes,
    environment,
  });
}

/** A file as its path, size and modification time; "missing" when it is gone. */
async function fileIdentity(path: string): Promise<string> {
  try {
    const info = await stat(path);
    return `${path}:${info.size}:${info.mtimeMs}`;
  } catch {
    return `${path}:missing`;
  }
}

/**
 * The manifests the Vulkan loader reads on Linux: the files or folders VK_DRIVER_FILES (or the
 * older VK_ICD_FILENAMES) names instead of the standard folders, else the standard folders
 * (XDG config and data folders, /etc), with VK_ADD_DRIVER_FILES's in both cases.
 */
export async function vulkanDriverManifests(environment: NodeJS.ProcessEnv): Promise<string[]> {
  const listed = (name: string): string[] =>
    (environment[name] ?? "").split(delimiter).filter((entry) => entry !== "");
  const replacing = environment.VK_DRIVER_FILES ?? environment.VK_ICD_FILENAMES;
  const places =
    replacing !== undefined && replacing !== ""
      ? listed(environment.VK_DRIVER_FILES === undefined ? "VK_ICD_FILENAMES" : "VK_DRIVER_FILES")
      : standardDriverFolders(environment);
  places.push(...listed("VK_ADD_DRIVER_FILES"));
  const found = await Promise.all(places.map(manifestsAt));
  return found.flat();
}

function standardDriverFolders(environment: NodeJS.ProcessEnv): string[] {
  const home = environment.HOME ?? homedir();
  const split = (value: string | undefined, fallback: string): string[] =>
    (value === undefined || value === "" ? fallback : value).split(delimiter);
  const configFolders = [
    environment.XDG_CONFIG_HOME ?? join(home, ".config"),
    ...split(environment.XDG_CONFIG_DIRS, "/etc/xdg"),
    "/etc",
  ];
  const dataFolders = [
    environment.XDG_DATA_HOME ?? join(home, ".local", "share"),
    ...split(environment.XDG_DATA_DIRS, "/usr/local/share:/usr/share"),
  ];
  return [...configFolders, ...dataFolders].map((folder) => join(folder, "vulkan", "icd.d"));
}

/**
 * Each .json's identity in a folder, or the place's own as a file: a missing folder counts as a
 * missing file, so a driver folder that appears later changes the key.
 */
async function manifestsAt(place: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(place);
  } catch {
    // Not a folder: a manifest file itself (its identity says if it is missing).
    return [await fileIdentity(place)];
  }
  const manifests = names.filter((name) => name.endsWith(".json")).sort();
  return Promise.all(manifests.map((name) => fileIdentity(join(place, name))));
}

/** GPU device nodes (DRM render nodes, NVIDIA's): a GPU added or removed changes them. */
async function gpuDeviceNodes(): Promise<string[]> {
  const list = async (folder: string, keep: (name: string) => boolean): Promise<string[]> => {
    try {
      return (await readdir(folder)).filter(keep).map((name) => join(folder, name));
    } catch {
      return [];
    }
  };
  const [dri, nvidia] = await Promise.all([
    list("/dev/dri", () => true),
    list("/dev", (name) => name.startsWith("nvidia")),
  ]);
  return [...dri, ...nvidia].sort();
}
