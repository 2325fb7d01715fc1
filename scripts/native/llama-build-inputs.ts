// What native code needs to build against the llama.cpp that node-llama-cpp installed: its
// prebuilt shared libraries (the CPU package for this platform) and the matching headers,
// extracted from the llama.cpp source bundle node-llama-cpp ships.
import { execFile } from "node:child_process";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const require = createRequire(import.meta.url);

export interface LlamaBinaries {
  /** node-llama-cpp's prebuilt package for this platform, e.g. @node-llama-cpp/linux-x64. */
  packageName: string;
  /** Folder with libllama, libggml*, the CPU backend variants and llama-addon.node. */
  directory: string;
  /** libllama's file name there (it carries llama.cpp's release, e.g. libllama.v0.5.0.so). */
  llamaLibrary: string;
}

export class NativeBuildInputError extends Error {
  override readonly name = "NativeBuildInputError";
}

function prebuiltPackageName(): string {
  const { platform, arch } = process;
  if (platform === "linux") return `@node-llama-cpp/linux-${arch}`;
  if (platform === "darwin")
    return arch === "arm64" ? "@node-llama-cpp/mac-arm64-metal" : "@node-llama-cpp/mac-x64";
  throw new NativeBuildInputError(
    `no native generation loop for ${platform}: only Linux and macOS are supported so far`,
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * node-llama-cpp's installed binaries: the CPU package for this platform, or the prebuilt package
 * named (e.g. @node-llama-cpp/linux-x64-cuda, whose libraries carry the backend in their names).
 */
export async function findLlamaBinaries(
  packageName = prebuiltPackageName(),
): Promise<LlamaBinaries> {
  let entryPoint: string;
  try {
    // Resolved from node-llama-cpp's own location: its optional dependency may not be hoisted.
    const fromNodeLlamaCpp = createRequire(require.resolve("node-llama-cpp"));
    entryPoint = fromNodeLlamaCpp.resolve(packageName);
  } catch (error) {
    throw new NativeBuildInputError(`${packageName} is not installed (${String(error)})`);
  }
  const directory = join(
    packageRootOf(packageName, entryPoint),
    "bins",
    packageName.split("/")[1] ?? "",
  );
  const entries = await readdir(directory).catch(() => [] as string[]);
  const llamaLibrary = entries.find((name) =>
    /^libllama(\.[a-z]+)?(\.v[\d.]+)?\.(so|dylib)$/.test(name),
  );
  if (llamaLibrary === undefined) {
    throw new NativeBuildInputError(`no libllama in ${directory}`);
  }
  return { packageName, directory, llamaLibrary };
}

/** "so" or "dylib", as node-llama-cpp's binaries for this platform are named. */
export function sharedLibraryExtension(binaries: LlamaBinaries): "so" | "dylib" {
  return binaries.llamaLibrary.endsWith(".dylib") ? "dylib" : "so";
}

/**
 * What native code links against: libllama, libggml-base and libggml (full paths). libggml carries
 * llama.cpp's release in its name as libllama does, libggml-base does not.
 */
export function llamaLinkLibraries(binaries: LlamaBinaries): string[] {
  const extension = sharedLibraryExtension(binaries);
  // libllama.v0.5.0.so → libggml.v0.5.0.so, libllama.cuda.v0.5.0.so → libggml.cuda.v0.5.0.so
  const ggmlLibrary = binaries.llamaLibrary.replace(/^libllama/, "libggml");
  return [binaries.llamaLibrary, `libggml-base.${extension}`, ggmlLibrary].map((name) =>
    join(binaries.directory, name),
  );
}

/** The llama.cpp source bundle node-llama-cpp installed (a git bundle of the exact release). */
export function llamaSourceBundle(): string {
  return join(
    packageRootOf("node-llama-cpp", require.resolve("node-llama-cpp")),
    "llama",
    "gitRelease.bundle",
  );
}

/** A package's folder from its resolved entry point (these packages' exports hide package.json). */
function packageRootOf(packageName: string, entryPoint: string): string {
  return entryPoint.slice(0, entryPoint.lastIndexOf(packageName) + packageName.length);
}

/**
 * Extracts llama.h and ggml's headers from the bundle into `target` (once), returning the
 * include folders. Needs git.
 */
export async function extractLlamaHeaders(target: string): Promise<string[]> {
  await extractLlamaSources(target, ["include", "ggml/include"]);
  return [join(target, "include"), join(target, "ggml", "include")];
}

/** Extracts folders of llama.cpp's source from the bundle into `target` (once per first path). */
export async function extractLlamaSources(target: string, paths: string[]): Promise<void> {
  if (await exists(join(target, paths[0] ?? ""))) return;
  const bundle = llamaSourceBundle();
  if (!(await exists(bundle))) throw new NativeBuildInputError(`${bundle} is missing`);
  const repository = `${target}.git`;
  const archive = `${target}.tar`;
  await rm(repository, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  try {
    await run("git", ["clone", "--quiet", "--bare", bundle, repository]);
    await run("git", ["--git-dir", repository, "archive", "--output", archive, "HEAD", ...paths]);
    await run("tar", ["-x", "-f", archive, "-C", target]);
  } catch (error) {
    throw new NativeBuildInputError(`could not extract llama.cpp's sources: ${String(error)}`);
  } finally {
    await rm(repository, { recursive: true, force: true });
    await rm(archive, { force: true });
  }
}
