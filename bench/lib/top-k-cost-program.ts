// bench/native/top-k-cost.cpp, compiled against node-llama-cpp's prebuilt libllama with the native
// loop's own headers, and one run of it: the native loop's top-k and greedy against llama.cpp's
// samplers on the same logits (bench/top-k-cost.ts prints the costs, a test checks the tokens).
import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  extractLlamaHeaders,
  findLlamaBinaries,
  llamaLinkLibraries,
} from "../../scripts/native/llama-build-inputs.ts";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const directory = join(root, ".spark-test", "native-anchor");

export interface TopKCostResult {
  vocabulary: number;
  k: number;
  tieStep: number;
  nonzero: number;
  llamaMicroseconds: number;
  selectionMicroseconds: number;
  /** select_top_k, plus llama.cpp's top-k in the rounds ties handed over to it. */
  nativeMicroseconds: number;
  fallbacks: number;
  /** Rounds where select_top_k's tokens or order differ from llama.cpp's top-k. */
  mismatches: number;
  rounds: number;
  llamaGreedyMicroseconds: number;
  nativeGreedyMicroseconds: number;
  /** Rounds where first_maximum's token differs from llama.cpp's greedy sampler's. */
  greedyMismatches: number;
}

export interface TopKCostCase {
  vocabulary: number;
  /** 0: continuous logits; else rounded to multiples of it (ties). */
  tieStep: number;
  /** > 0: only that many logits drawn, the rest 0 (the project's random-weight test models). */
  nonzero: number;
}

/** Compiles the program (a few seconds) and returns its path. */
export async function buildTopKCost(): Promise<string> {
  const executable = join(directory, "top-k-cost");
  const binaries = await findLlamaBinaries();
  const includes = await extractLlamaHeaders(join(directory, "llama-headers"));
  await mkdir(directory, { recursive: true });
  await run(process.env.CXX ?? "c++", [
    "-O3", // as binding.gyp builds the native loop
    "-std=c++17",
    ...includes.map((include) => `-I${include}`),
    `-I${join(root, "native", "generation-loop", "src")}`,
    join(root, "bench", "native", "top-k-cost.cpp"),
    "-o",
    executable,
    ...llamaLinkLibraries(binaries),
    `-Wl,-rpath,${binaries.directory}`,
  ]);
  return executable;
}

/** One case, k = 40; a run whose tokens differ from llama.cpp's exits 1 and still reports. */
export async function runTopKCost(
  executable: string,
  testCase: TopKCostCase,
  rounds: number,
): Promise<TopKCostResult> {
  const { stdout } = await run(executable, [
    String(testCase.vocabulary),
    "40",
    String(rounds),
    String(testCase.tieStep),
    String(testCase.nonzero),
  ]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "{}" }));
  return JSON.parse(stdout) as TopKCostResult;
}
