// The sampling fields /v1/completions and /infill share, as the engine takes them.
import type { SamplingOptions } from "../../engines/engine.ts";

export interface CompletionSamplingFields {
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
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(body.temperature == null ? {} : { temperature: body.temperature }),
    ...(body.top_p == null ? {} : { topP: body.top_p }),
    ...(body.seed == null ? {} : { seed: body.seed }),
    ...(stop === undefined ? {} : { stop: typeof stop === "string" ? [stop] : stop }),
  };
}
