// top_k, min_p and the penalties from any endpoint's body, as the engine takes them: a field left
// out or null leaves the engine's default; top_k -1 (vLLM's "off") is 0, which keeps every token.
import type { SamplingOptions } from "../../engines/engine.ts";

export interface ExtendedSamplingFields {
  top_k?: number | null | undefined;
  min_p?: number | null | undefined;
  presence_penalty?: number | null | undefined;
  frequency_penalty?: number | null | undefined;
}

export function extendedSampling(
  body: ExtendedSamplingFields,
): Pick<SamplingOptions, "topK" | "minP" | "presencePenalty" | "frequencyPenalty"> {
  return {
    ...(body.top_k == null ? {} : { topK: Math.max(0, body.top_k) }),
    ...(body.min_p == null ? {} : { minP: body.min_p }),
    ...(body.presence_penalty == null ? {} : { presencePenalty: body.presence_penalty }),
    ...(body.frequency_penalty == null ? {} : { frequencyPenalty: body.frequency_penalty }),
  };
}
