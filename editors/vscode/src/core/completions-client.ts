// Streams a fill-in-the-middle completion from `POST /v1/completions` (OpenAI's legacy shape with
// `suffix`), keyed by the document id so the server reuses that document's cached prefix.
import type { CompletionRequest } from "./completion-request.ts";
import { postEventStream, type SparkServer } from "./spark-http.ts";

export interface CompletionStreamOptions {
  model?: string | undefined;
  signal: AbortSignal;
}

export interface CompletionDelta {
  text: string;
  /** The model that answered, as the server names it. */
  model: string | undefined;
}

export async function* streamCompletion(
  server: SparkServer,
  request: CompletionRequest,
  options: CompletionStreamOptions,
): AsyncGenerator<CompletionDelta> {
  const body = {
    ...(options.model ? { model: options.model } : {}),
    prompt: request.prefix,
    suffix: request.suffix,
    max_tokens: request.maxTokens,
    temperature: 0,
    stream: true,
    // The gateway's existing per-client cache key; a FIM server keys its KV slot on it.
    prompt_cache_key: request.documentId,
  };
  for await (const chunk of postEventStream(server, "v1/completions", body, options.signal)) {
    const choices = chunk.choices;
    if (!Array.isArray(choices)) continue;
    const first = choices[0] as { text?: unknown } | undefined;
    if (typeof first?.text === "string" && first.text !== "")
      yield { text: first.text, model: typeof chunk.model === "string" ? chunk.model : undefined };
  }
}
