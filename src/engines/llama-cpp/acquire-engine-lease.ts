// The sequence a request runs on: from the native loop's pool when that loop runs the request, else
// from node-llama-cpp's; either pool chooses by session key, then by the rendered prompt.
import type { LlamaContextSequence } from "node-llama-cpp";
import { cacheAffinityKey } from "../cache-affinity-key.ts";
import type { EngineRequest } from "../engine.ts";
import type { RenderedPrompt } from "./completion-prompt.ts";
import type { NativeSequence } from "./native-loop/native-sequence.ts";
import type { SequenceLease, SequencePool } from "./sequence-pool.ts";

export type EngineLease =
  | { loop: "node-llama-cpp"; lease: SequenceLease<LlamaContextSequence> }
  | { loop: "native"; lease: SequenceLease<NativeSequence> };

export interface EnginePools {
  /** The native loop's pool when it runs this request. */
  native: SequencePool<NativeSequence> | undefined;
  /** node-llama-cpp's pool, asked for only when the native loop does not run the request. */
  nodeLlamaCpp: () => SequencePool<LlamaContextSequence>;
}

export async function acquireEngineLease(
  pools: EnginePools,
  request: EngineRequest,
  prompt: RenderedPrompt,
  signal: AbortSignal | undefined,
): Promise<EngineLease> {
  // A document's completions wait for its own sequence (the previous keystroke's request is
  // being cancelled) rather than take another one without its cache.
  const options = { waitForOwn: request.completion !== undefined, prompt };
  const sessionKey = cacheAffinityKey(request);
  const { cacheScope } = request;
  if (pools.native !== undefined) {
    const lease = await pools.native.acquire(sessionKey, cacheScope, signal, options);
    return { loop: "native", lease };
  }
  const lease = await pools.nodeLlamaCpp().acquire(sessionKey, cacheScope, signal, options);
  return { loop: "node-llama-cpp", lease };
}
