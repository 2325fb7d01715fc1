// Run in a child process by llama-cpp-lavapipe.test.ts (so the test runner never loads Vulkan):
// opens the embedded engine on each model `models` names (paths joined by the path delimiter, one
// engine after another, each disposed before the next) with `gpu` as a user's config would,
// generates greedily, and prints one JSON line per model: the backend node-llama-cpp ended on, what
// `auto` refused, the decode loop with the library it calls, and the text with its timings (which
// say where it sampled). With a cache folder, the engine remembers `auto`'s refusal there, and the
// report lists every llama-addon binding the process loaded.
import { basename, delimiter } from "node:path";
import { collectStream } from "../../../src/engines/collect-stream.ts";
import {
  getSharedLlamaBackend,
  type GpuSetting,
} from "../../../src/engines/llama-cpp/llama-backend.ts";
import { createLlamaCppEngine } from "../../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { DeviceSamplingMode } from "../../../src/engines/llama-cpp/native-loop/device-sampling-mode.ts";
import { findNativeLoop } from "../../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { forksWithoutTsx } from "../../support/forks-without-tsx.ts";

forksWithoutTsx();

// Every addon binding loaded, in order (node-llama-cpp loads them through process.dlopen).
const bindingsLoaded: string[] = [];
// eslint-disable-next-line @typescript-eslint/unbound-method
const dlopen = process.dlopen;
process.dlopen = (...args: Parameters<typeof process.dlopen>): void => {
  dlopen.apply(process, args);
  if (basename(args[1]).startsWith("llama-addon")) bindingsLoaded.push(args[1]);
};

const [
  models,
  gpuArgument,
  prompt = "hello",
  maxTokens = "24",
  deviceSampling = "auto",
  cacheDirectory = "",
] = process.argv.slice(2);
if (models === undefined || gpuArgument === undefined) {
  throw new Error(
    "usage: engine-backend-child.ts <model.gguf[:…]> <auto|false|vulkan> [prompt] [tokens] [auto|on|off] [cache folder]",
  );
}
const gpu = (gpuArgument === "false" ? false : gpuArgument) as GpuSetting;
for (const modelPath of models.split(delimiter)) {
  const engine = await createLlamaCppEngine({
    modelPath,
    gpu,
    threads: 1,
    sequences: 1,
    contextSize: 512,
    deviceSampling: deviceSampling as DeviceSamplingMode,
    ...(cacheDirectory === ""
      ? {}
      : { prefixCache: { directory: cacheDirectory, maxBytes: 64 * 1024 ** 2 } }),
  });
  try {
    const backend = await getSharedLlamaBackend(gpu);
    const found = findNativeLoop("native", backend);
    const result = await collectStream(
      engine.stream({
        messages: [{ role: "user", content: prompt }],
        sampling: { temperature: 0, maxOutputTokens: Number(maxTokens) },
      }),
    );
    const report = {
      gpu: backend.llama.gpu,
      gpuDevices: await backend.llama.getGpuDeviceNames(),
      refused: backend.refused,
      warning: backend.warning,
      decodeLoop: engine.decodeLoop,
      fallbackReason: engine.decodeLoopFallbackReason,
      gpuLayers: engine.gpuLayers,
      llamaLibrary: found.addon === undefined ? undefined : found.binding.llamaLibrary,
      devices: found.addon === undefined ? [] : found.binding.devices,
      text: result.text,
      outputTokens: result.usage?.outputTokens,
      timings: result.timings,
      bindingsLoaded,
    };
    process.stdout.write(JSON.stringify(report) + "\n");
  } finally {
    await engine.dispose();
  }
}
