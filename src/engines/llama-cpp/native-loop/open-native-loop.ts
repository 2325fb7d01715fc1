// Chooses the embedded engine's decode loop for plain text: Spark's native loop when it is built,
// loads and binds to node-llama-cpp's llama.cpp (the default), node-llama-cpp's otherwise, with the
// reason kept (the engine's decodeLoopFallbackReason). SPARK_DECODE_LOOP=node-llama-cpp forces it.
import { SparkError } from "../../../protocol/spark-error.ts";
import type { LlamaBackend } from "../llama-backend.ts";
import {
  loadGenerationLoop,
  type AddonContextOptions,
  type AddonLlamaBinding,
  type GenerationLoopAddon,
} from "./generation-loop-addon.ts";
import { NativeContext } from "./native-context.ts";

export const DECODE_LOOPS = ["native", "node-llama-cpp"] as const;
export type DecodeLoop = (typeof DECODE_LOOPS)[number];

export type NativeLoopChoice =
  { native: NativeContext; reason?: undefined } | { native?: undefined; reason: string };

/** The loop asked for: the engine option, else SPARK_DECODE_LOOP, else native. */
export function requestedDecodeLoop(option: DecodeLoop | undefined): DecodeLoop {
  if (option !== undefined) return option;
  const fromEnvironment = process.env.SPARK_DECODE_LOOP;
  if (fromEnvironment === undefined || fromEnvironment === "") return "native";
  if ((DECODE_LOOPS as readonly string[]).includes(fromEnvironment)) {
    return fromEnvironment as DecodeLoop;
  }
  throw new SparkError(
    "invalid_config",
    `SPARK_DECODE_LOOP is "${fromEnvironment}"; use "native" or "node-llama-cpp".`,
  );
}

export type NativeLoopFound =
  | { addon: GenerationLoopAddon; path: string; binding: AddonLlamaBinding; reason?: undefined }
  | { addon?: undefined; reason: string };

/**
 * The native loop's addon, bound to the llama.cpp behind node-llama-cpp's `backend`, when the loop
 * asked for is native and both work; else why not. The engine and `spark doctor` both come here.
 */
export function findNativeLoop(
  requested: DecodeLoop,
  backend: Pick<LlamaBackend, "bindingPath"> | undefined,
  addonPath?: string,
): NativeLoopFound {
  if (requested === "node-llama-cpp") return { reason: "node-llama-cpp's loop was requested" };
  const loaded = loadGenerationLoop(addonPath);
  if (loaded.addon === undefined) return { reason: loaded.reason };
  if (backend?.bindingPath === undefined) {
    return {
      reason:
        "it could not tell which llama.cpp node-llama-cpp loaded (no llama-addon.node was seen loading)",
    };
  }
  let binding: AddonLlamaBinding;
  try {
    binding = loaded.addon.bindLlama(backend.bindingPath);
  } catch (error) {
    return {
      reason: `it cannot call node-llama-cpp's llama.cpp: ${SparkError.from(error).message}`,
    };
  }
  // The failure this binding exists to prevent: a libllama whose registry has no backend.
  if (binding.devices.length === 0) {
    return { reason: `llama.cpp in ${binding.ggmlLibrary} has no backend loaded` };
  }
  return { addon: loaded.addon, path: loaded.path, binding };
}

export async function openNativeLoop(
  requested: DecodeLoop,
  backend: Pick<LlamaBackend, "bindingPath"> | undefined,
  settings: AddonContextOptions,
  addonPath?: string,
): Promise<NativeLoopChoice> {
  const found = findNativeLoop(requested, backend, addonPath);
  if (found.addon === undefined) return { reason: found.reason };
  try {
    return { native: await NativeContext.create(found.addon, settings) };
  } catch (error) {
    return { reason: SparkError.from(error).message };
  }
}
