// Chooses the embedded engine's decode loop for plain text: Spark's native loop when it is built
// and loads (the default), node-llama-cpp's otherwise, with the reason kept (the engine's
// decodeLoopFallbackReason). SPARK_DECODE_LOOP=node-llama-cpp forces the fallback.
import { SparkError } from "../../../protocol/spark-error.ts";
import {
  loadGenerationLoop,
  type AddonContextOptions,
  type GenerationLoopLoad,
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

/**
 * The native loop's addon when the loop asked for is native and the addon loads, else why not.
 * Call after node-llama-cpp loaded its backend (see loadGenerationLoop).
 */
export function findNativeLoop(requested: DecodeLoop, addonPath?: string): GenerationLoopLoad {
  if (requested === "node-llama-cpp") return { reason: "node-llama-cpp's loop was requested" };
  return loadGenerationLoop(addonPath);
}

export async function openNativeLoop(
  requested: DecodeLoop,
  settings: AddonContextOptions,
  addonPath?: string,
): Promise<NativeLoopChoice> {
  const loaded = findNativeLoop(requested, addonPath);
  if (loaded.addon === undefined) return { reason: loaded.reason };
  try {
    return { native: await NativeContext.create(loaded.addon, settings) };
  } catch (error) {
    return { reason: SparkError.from(error).message };
  }
}
