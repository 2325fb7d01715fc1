// Which loop the embedded engine decodes on: Spark's native loop when its addon is built and loads
// (plain text, prompt lookup and <tool_call> tool turns), node-llama-cpp's otherwise, and why.
import { loadGenerationLoop } from "../../engines/llama-cpp/native-loop/generation-loop-addon.ts";
import {
  requestedDecodeLoop,
  type DecodeLoop,
} from "../../engines/llama-cpp/native-loop/open-native-loop.ts";
import { SparkError } from "../../protocol/spark-error.ts";

export interface DecodeLoopReport {
  loop: DecodeLoop;
  /** The addon's file, when the native loop is in use. */
  addonPath: string | undefined;
  /** Why decoding runs on node-llama-cpp's loop. */
  reason: string | undefined;
  /** SPARK_DECODE_LOOP holds something else than a loop's name. */
  invalidSetting: string | undefined;
}

/** Call after node-llama-cpp loaded its backend: the addon then shares its libllama. */
export function probeDecodeLoop(): DecodeLoopReport {
  let requested: DecodeLoop;
  try {
    requested = requestedDecodeLoop(undefined);
  } catch (error) {
    const message = SparkError.from(error).message;
    return {
      loop: "node-llama-cpp",
      addonPath: undefined,
      reason: message,
      invalidSetting: message,
    };
  }
  if (requested === "node-llama-cpp") {
    const reason = "SPARK_DECODE_LOOP=node-llama-cpp";
    return { loop: requested, addonPath: undefined, reason, invalidSetting: undefined };
  }
  const loaded = loadGenerationLoop();
  return loaded.addon === undefined
    ? {
        loop: "node-llama-cpp",
        addonPath: undefined,
        reason: loaded.reason,
        invalidSetting: undefined,
      }
    : { loop: "native", addonPath: loaded.path, reason: undefined, invalidSetting: undefined };
}
