// llama.cpp's own sampled generation loop (bench/native/sampled-loop.cpp) and llama-bench, compiled
// once into .spark-test/native-anchor against node-llama-cpp's prebuilt libllama (and its
// libllama-common), so the anchors and Spark run the very same binaries. Nothing is downloaded
// and no binary is committed. On a GPU the anchors are built against node-llama-cpp's GPU package
// (`backend: "cuda"` links libllama.cuda.*) into their own folder, which can be built here and
// carried to a GPU machine that has no llama.cpp sources (bench/gpu-check.sh).
import { execFile } from "node:child_process";
import { mkdir, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  extractLlamaHeaders,
  extractLlamaSources,
  findLlamaBinaries,
  llamaLinkLibraries,
  sharedLibraryExtension,
  type LlamaBinaries,
} from "../../scripts/native/llama-build-inputs.ts";

const run = promisify(execFile);
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const source = join(repositoryRoot, "bench", "native", "sampled-loop.cpp");
const cacheRoot = join(repositoryRoot, ".spark-test");

/** A GPU backend whose node-llama-cpp prebuilt package the anchors link against. */
export type AnchorBackend = "cuda" | "vulkan";

interface AnchorTarget {
  binaries: LlamaBinaries;
  cacheDirectory: string;
}

async function anchorTarget(backend: AnchorBackend | undefined): Promise<AnchorTarget> {
  if (backend === undefined) {
    return {
      binaries: await findLlamaBinaries(),
      cacheDirectory: join(cacheRoot, "native-anchor"),
    };
  }
  const packageName = `@node-llama-cpp/${process.platform}-${process.arch}-${backend}`;
  return {
    binaries: await findLlamaBinaries(packageName),
    cacheDirectory: join(cacheRoot, `native-anchor-${backend}`),
  };
}

/**
 * Builds with `build` unless `executable` is newer than every input; when the build fails (a GPU
 * machine without the llama.cpp sources) an executable built elsewhere and carried along is used.
 */
async function buildOrReuse(
  executable: string,
  newerThan: number,
  build: () => Promise<void>,
): Promise<void> {
  const builtAt = await modifiedAt(executable);
  if (builtAt > newerThan) return;
  try {
    await build();
  } catch (error) {
    if (builtAt < 0) throw error;
    console.log(
      `${executable}: rebuild failed, using the one present (${String(error).split("\n")[0]})`,
    );
  }
}

export interface NativeAnchor {
  executable: string;
  binaries: LlamaBinaries;
}

export interface AnchorRun {
  modelPath: string;
  threads: number;
  tokens: number;
  promptTokens: readonly number[];
  temperature: number;
  contextSize?: number;
  seed?: number;
  /** Layers offloaded to the GPU backend (0: the CPU). */
  gpuLayers?: number;
  /** llama.cpp's backend sampling (llama_set_sampler) instead of sampling on the host. */
  backendSampling?: boolean;
}

async function modifiedAt(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return -1;
  }
}

/** Builds the anchor when the source is newer than the cached binary (a few seconds). */
export async function buildNativeAnchor(backend?: AnchorBackend): Promise<NativeAnchor> {
  const { binaries, cacheDirectory } = await anchorTarget(backend);
  const executable = join(cacheDirectory, "sampled-loop");
  await buildOrReuse(executable, await modifiedAt(source), async () => {
    const includes = await extractLlamaHeaders(join(cacheRoot, "native-anchor", "llama-headers"));
    await mkdir(cacheDirectory, { recursive: true });
    await run(process.env.CXX ?? "c++", [
      "-O2",
      "-std=c++17",
      ...includes.map((include) => `-I${include}`),
      source,
      "-o",
      executable,
      ...llamaLinkLibraries(binaries),
      `-Wl,-rpath,${binaries.directory}`,
    ]);
  });
  return { executable, binaries };
}

export interface AnchorSample {
  tokensPerSecond: number;
  /** CPU time per token, every thread of the process (meaningful at one thread). */
  cpuMicrosecondsPerToken: number;
}

/** One anchor run, timed from the first to the last sampled token. */
export async function runNativeAnchor(
  anchor: NativeAnchor,
  options: AnchorRun,
): Promise<AnchorSample> {
  const { stdout } = await run(anchor.executable, [
    "--model",
    options.modelPath,
    "--backends",
    anchor.binaries.directory,
    "--threads",
    String(options.threads),
    "--tokens",
    String(options.tokens),
    "--context",
    String(options.contextSize ?? 2048),
    "--temperature",
    String(options.temperature),
    "--seed",
    String(options.seed ?? 1),
    "--prompt-tokens",
    options.promptTokens.join(","),
    ...(options.backendSampling === true ? ["--backend-sampling", "1"] : []),
    ...(options.gpuLayers === undefined ? [] : ["--gpu-layers", String(options.gpuLayers)]),
  ]);
  const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
    decodeTokensPerSecond?: number;
    cpuMicrosecondsPerToken?: number;
  };
  if (typeof result.decodeTokensPerSecond !== "number") {
    throw new Error(`the native anchor printed no result: ${stdout}`);
  }
  return {
    tokensPerSecond: result.decodeTokensPerSecond,
    cpuMicrosecondsPerToken: result.cpuMicrosecondsPerToken ?? 0,
  };
}

/** llama-bench from the bundled source, linked to the prebuilt libraries (about a minute). */
export async function buildLlamaBench(backend?: AnchorBackend): Promise<NativeAnchor> {
  const { binaries, cacheDirectory } = await anchorTarget(backend);
  const executable = join(cacheDirectory, "llama-bench");
  await buildOrReuse(executable, 0, async () => {
    const sources = join(cacheRoot, "native-anchor", "llama-bench-source");
    await extractLlamaSources(sources, [
      "tools/llama-bench",
      "common",
      "vendor",
      "include",
      "ggml/include",
    ]);
    await mkdir(cacheDirectory, { recursive: true });
    await run(process.env.CXX ?? "c++", [
      "-O2",
      "-DNDEBUG",
      "-std=c++17",
      ...["common", "include", "ggml/include", "vendor"].map(
        (folder) => `-I${join(sources, folder)}`,
      ),
      join(sources, "tools/llama-bench/llama-bench.cpp"),
      join(sources, "tools/llama-bench/main.cpp"),
      "-o",
      executable,
      join(binaries.directory, `libllama-common.${sharedLibraryExtension(binaries)}`),
      ...llamaLinkLibraries(binaries),
      `-Wl,-rpath,${binaries.directory}`,
    ]);
  });
  return { executable, binaries };
}

/** llama-bench's tg figure (decode without sampling: a floor, not the fair anchor). */
export async function runLlamaBench(
  bench: NativeAnchor,
  options: {
    modelPath: string;
    threads: number;
    tokens: number;
    gpuLayers?: number;
    /** Tokens in the KV cache before the timed decode (llama-bench's -d). */
    depth?: number;
  },
): Promise<number> {
  // llama-bench loads ggml's backends from its working folder.
  const { stdout } = await run(
    bench.executable,
    [
      "-m",
      options.modelPath,
      ...(options.depth === undefined ? [] : ["-d", String(options.depth)]),
      "-p",
      "0",
      "-n",
      String(options.tokens),
      "-t",
      String(options.threads),
      "-r",
      "1",
      "-ngl",
      String(options.gpuLayers ?? 0),
      "-o",
      "json",
    ],
    { cwd: bench.binaries.directory },
  );
  const results = JSON.parse(stdout) as { avg_ts?: number }[];
  const tokensPerSecond = results[0]?.avg_ts;
  if (typeof tokensPerSecond !== "number")
    throw new Error(`llama-bench printed no result: ${stdout}`);
  return tokensPerSecond;
}
