// A native loop context for the benches that time the addon's own clocks (the grammar's work, host
// sampling): bound to the llama.cpp the given backend loaded, so it can run in a process whose
// engines run on a GPU (the native loop binds to one libllama per process).
import {
  getSharedLlamaBackend,
  type GpuSetting,
} from "../../src/engines/llama-cpp/llama-backend.ts";
import { NativeContext } from "../../src/engines/llama-cpp/native-loop/native-context.ts";
import { findNativeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import type { LlamaBackend } from "../../src/engines/llama-cpp/llama-backend.ts";

export interface NativeBenchContextOptions {
  modelPath: string;
  contextSize: number;
  threads: number;
  /** false: the CPU backend. A GPU setting offloads every layer. */
  gpu?: GpuSetting;
}

export async function openNativeBenchContext(
  options: NativeBenchContextOptions,
): Promise<{ backend: LlamaBackend; context: NativeContext }> {
  const gpu = options.gpu ?? false;
  const backend = await getSharedLlamaBackend(gpu);
  const found = findNativeLoop("native", backend);
  if (found.addon === undefined) throw new Error(found.reason);
  const context = await NativeContext.create(found.addon, {
    modelPath: options.modelPath,
    contextSize: options.contextSize,
    sequences: 1,
    threads: options.threads,
    batchSize: 64,
    gpuLayers: gpu === false || backend.llama.gpu === false ? 0 : 999,
  });
  return { backend, context };
}
