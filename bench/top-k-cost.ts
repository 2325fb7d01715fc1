// What sampling with a temperature costs per token before the model's own work: llama.cpp's top-k
// (a candidate per vocabulary entry, partially sorted) against the native loop's select_top_k,
// on the same random logits, checked to leave the same tokens in the same order. Compiled at
// bench time against node-llama-cpp's prebuilt libllama (bench/native/top-k-cost.cpp).
// Usage: npx tsx bench/top-k-cost.ts [--rounds 300]
import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { promisify } from "node:util";
import {
  extractLlamaHeaders,
  findLlamaBinaries,
  llamaLinkLibraries,
} from "../scripts/native/llama-build-inputs.ts";

const run = promisify(execFile);
const { values } = parseArgs({ options: { rounds: { type: "string", default: "300" } } });
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const directory = join(root, ".spark-test", "native-anchor");
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

interface Result {
  vocabulary: number;
  k: number;
  tieStep: number;
  nonzero: number;
  llamaMicroseconds: number;
  selectionMicroseconds: number;
  /** select_top_k, plus llama.cpp's top-k in the rounds ties handed over to it. */
  nativeMicroseconds: number;
  fallbacks: number;
  mismatches: number;
  rounds: number;
  llamaGreedyMicroseconds: number;
  nativeGreedyMicroseconds: number;
  greedyMismatches: number;
}

console.log(
  "| vocabulary | logits | llama.cpp top-k µs | native loop's top-k µs (select_top_k alone) | saved per token | ties → llama.cpp's path | order differs | greedy µs, llama.cpp / first_maximum | greedy token differs |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
let failed = false;
// nonzero > 0: that many logits drawn, the rest 0 (the project's random-weight test models).
for (const [vocabulary, tieStep, nonzero] of [
  [151_936, 0, 0],
  [151_936, 0.5, 0],
  [151_936, 0, 4096],
  [151_936, 0, 41],
  [32_000, 0, 0],
  [320, 0, 0],
] as const) {
  const { stdout } = await run(executable, [
    String(vocabulary),
    "40",
    values.rounds,
    String(tieStep),
    String(nonzero),
  ]).catch((error: { stdout?: string }) => {
    failed = true;
    return { stdout: error.stdout ?? "{}" };
  });
  const result = JSON.parse(stdout) as Result;
  console.log(
    `| ${vocabulary.toLocaleString("en-US")} | ${tieStep === 0 ? "continuous" : `rounded to ${tieStep}`}` +
      `${nonzero > 0 ? `, ${nonzero} drawn, the rest 0` : ""} | ` +
      `${result.llamaMicroseconds.toFixed(1)} | ${result.nativeMicroseconds.toFixed(1)} (${result.selectionMicroseconds.toFixed(1)}) | ` +
      `${(result.llamaMicroseconds - result.nativeMicroseconds).toFixed(1)} µs | ` +
      `${result.fallbacks}/${result.rounds} | ${result.mismatches} | ` +
      `${result.llamaGreedyMicroseconds.toFixed(1)} / ${result.nativeGreedyMicroseconds.toFixed(1)} | ${result.greedyMismatches} |`,
  );
}
if (failed) {
  console.error(
    "select_top_k left another order than llama.cpp's top-k: the native loop would sample other text",
  );
  process.exit(1);
}
