// Token counts from whichever field a server uses: OpenAI's `usage` (with cached and prediction
// details), Groq's `x_groq.usage`, and llama-server's `timings` (prompt_n evaluated, cache_n reused).
import type { Usage } from "../engine.ts";
import type { ChatCompletionsChunk } from "./chat-completions-wire.ts";

export function readChunkUsage(chunk: ChatCompletionsChunk): Partial<Usage> | undefined {
  const usage = chunk.usage ?? chunk.x_groq?.usage ?? undefined;
  const timings = chunk.timings ?? undefined;
  if (usage === undefined && timings === undefined) return undefined;
  const result: Partial<Usage> = {};
  const input = count(usage?.prompt_tokens);
  const cached = count(usage?.prompt_tokens_details?.cached_tokens);
  const output = count(usage?.completion_tokens);
  const accepted = count(usage?.completion_tokens_details?.accepted_prediction_tokens);
  const rejected = count(usage?.completion_tokens_details?.rejected_prediction_tokens);
  if (input !== undefined) result.inputTokens = input;
  if (cached !== undefined) result.cachedInputTokens = cached;
  if (output !== undefined) result.outputTokens = output;
  if (accepted !== undefined) result.acceptedPredictionTokens = accepted;
  if (rejected !== undefined) result.rejectedPredictionTokens = rejected;
  if (timings !== undefined) {
    const evaluated = count(timings.prompt_n);
    const reused = count(timings.cache_n);
    if (reused !== undefined) result.cachedInputTokens ??= reused;
    if (evaluated !== undefined || reused !== undefined) {
      // Older llama-server builds count only the evaluated tokens in prompt_tokens.
      result.inputTokens = Math.max(result.inputTokens ?? 0, (evaluated ?? 0) + (reused ?? 0));
    }
    result.outputTokens ??= count(timings.predicted_n);
    if (result.outputTokens === undefined) delete result.outputTokens;
  }
  return result;
}

/** Later chunks refine earlier ones; a field a later chunk leaves out keeps its earlier value. */
export function mergeUsage(
  earlier: Partial<Usage> | undefined,
  later: Partial<Usage> | undefined,
): Partial<Usage> | undefined {
  if (later === undefined) return earlier;
  return { ...earlier, ...later };
}

function count(value: number | null | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? Math.round(value)
    : undefined;
}
