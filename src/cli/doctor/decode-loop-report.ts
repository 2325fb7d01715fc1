// Which loop the embedded engine decodes on: Spark's native loop when its addon is built and loads
// (plain text, prompt lookup and <tool_call> tool turns), node-llama-cpp's otherwise, and why.
import {
  findNativeLoop,
  requestedDecodeLoop,
  type DecodeLoop,
} from "../../engines/llama-cpp/native-loop/open-native-loop.ts";
import { SparkError } from "../../protocol/spark-error.ts";

export interface DecodeLoopReport {
  loop: DecodeLoop;
  /** What SPARK_DECODE_LOOP asks for (native when unset); undefined when it is invalid. */
  requested: DecodeLoop | undefined;
  /** The addon's file, when the native loop is in use. */
  addonPath: string | undefined;
  /** Why decoding runs on node-llama-cpp's loop (or why the setting is invalid). */
  reason: string | undefined;
}

/** Call after node-llama-cpp loaded its backend: the addon then shares its libllama. */
export function probeDecodeLoop(): DecodeLoopReport {
  let requested: DecodeLoop;
  try {
    requested = requestedDecodeLoop(undefined);
  } catch (error) {
    const reason = SparkError.from(error).message;
    return { loop: "node-llama-cpp", requested: undefined, addonPath: undefined, reason };
  }
  const found = findNativeLoop(requested);
  return found.addon === undefined
    ? { loop: "node-llama-cpp", requested, addonPath: undefined, reason: found.reason }
    : { loop: "native", requested, addonPath: found.path, reason: undefined };
}
