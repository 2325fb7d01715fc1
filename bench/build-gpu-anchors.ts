// Builds the GPU anchors (llama.cpp's sampled loop and llama-bench, linked against node-llama-cpp's
// CUDA package) into .spark-test/native-anchor-cuda, here, for a GPU machine that has neither the
// llama.cpp sources nor a network: bench/gpu-check.sh carries that folder along.
// Usage: npx tsx bench/build-gpu-anchors.ts [--backend cuda|vulkan]
import { parseArgs } from "node:util";
import { buildLlamaBench, buildNativeAnchor, type AnchorBackend } from "./lib/native-anchor.ts";

const { values } = parseArgs({ options: { backend: { type: "string", default: "cuda" } } });
const backend = values.backend as AnchorBackend;
for (const built of [await buildNativeAnchor(backend), await buildLlamaBench(backend)]) {
  console.log(
    `${built.executable} (links ${built.binaries.directory}/${built.binaries.llamaLibrary})`,
  );
}
