// The sampling fields /v1/completions and /infill share, as the engine takes them.
import type { SamplingOptions } from "../../../engines/engine.ts";
import { extendedSampling, type ExtendedSamplingFields } from "../../turn/extended-sampling.ts";

export interface CompletionSamplingFields extends ExtendedSamplingFields {
  temperature?: number | null | undefined;
  top_p?: number | null | undefined;
  seed?: number | null | undefined;
  stop?: string | string[] | null | undefined;
}

/** `maxOutputTokens` undefined: no limit but the context's room. */
export function completionSampling(
  body: CompletionSamplingFields,
  maxOutputTokens: number | undefined,
): SamplingOptions {
  const stop = body.stop ?? undefined;
  return {
    ...extendedSampling(body),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(body.temperature == null ? {} : { temperature: body.temperature }),
    ...(body.top_p == null ? {} : { topP: body.top_p }),
    ...(body.seed == null ? {} : { seed: body.seed }),
    ...(stop === undefined ? {} : { stop: typeof stop === "string" ? [stop] : stop }),
  };
}
