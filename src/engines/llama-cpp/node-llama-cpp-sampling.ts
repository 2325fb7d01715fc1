// The request's filters as node-llama-cpp's evaluate, controlledEvaluate and LlamaChat take them
// (its chain: top-k -> top-p -> min-p -> temperature -> dist, as the native loop's). A field the
// request leaves out keeps node-llama-cpp's default (top-k 40, no min-p, top-p 0.95).
import type { SamplingOptions } from "../engine.ts";

export interface NodeLlamaCppFilters {
  topK?: number;
  topP?: number;
  minP?: number;
}

export function nodeLlamaCppFilters(sampling: SamplingOptions): NodeLlamaCppFilters {
  return {
    ...(sampling.topK === undefined ? {} : { topK: sampling.topK }),
    ...(sampling.topP === undefined ? {} : { topP: sampling.topP }),
    ...(sampling.minP === undefined ? {} : { minP: sampling.minP }),
  };
}
