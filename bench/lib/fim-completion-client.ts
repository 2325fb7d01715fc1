// One streamed /v1/completions request as an editor sends it per keystroke (the document named by
// prompt_cache_key, other files as input_extra), timed on the client: when it was sent, when its
// first text arrived, how it ended and what the server says it served from cache.
import type { BenchServer } from "./bench-server.ts";
import type { Keystroke } from "./typing-session.ts";

export interface FimRequestTiming {
  sentAt: number;
  firstTokenAt: number | null;
  finishReason: string;
  promptTokens: number;
  cachedTokens: number;
}

export interface FimRequestOptions {
  extra: { filename: string; text: string }[];
  document: string;
  maxTokens: number;
  timeBudgetMs: number;
}

interface CompletionChunk {
  choices: { text: string; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
}

export async function requestFimCompletion(
  server: BenchServer,
  keystroke: Pick<Keystroke, "prefix" | "suffix">,
  options: FimRequestOptions,
): Promise<FimRequestTiming & { text: string }> {
  const sentAt = performance.now();
  const response = await fetch(`${server.url}/v1/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: server.model,
      prompt: keystroke.prefix,
      suffix: keystroke.suffix,
      input_extra: options.extra,
      filename: options.document,
      prompt_cache_key: options.document,
      max_tokens: options.maxTokens,
      temperature: 0,
      t_max_predict_ms: options.timeBudgetMs,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  let firstTokenAt: number | null = null;
  let finishReason = "none";
  let promptTokens = 0;
  let cachedTokens = 0;
  let text = "";
  let buffered = "";
  const decoder = new TextDecoder();
  if (response.body === null) throw new Error(`No body (HTTP ${response.status}).`);
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffered += decoder.decode(read.value, { stream: true });
    let boundary = buffered.indexOf("\n\n");
    while (boundary !== -1) {
      const block = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary + 2);
      boundary = buffered.indexOf("\n\n");
      if (!block.startsWith("data: ") || block === "data: [DONE]") continue;
      const chunk = JSON.parse(block.slice("data: ".length)) as CompletionChunk;
      const choice = chunk.choices[0];
      if (choice !== undefined && choice.text !== "") firstTokenAt ??= performance.now();
      text += choice?.text ?? "";
      if (choice?.finish_reason != null) finishReason = choice.finish_reason;
      if (chunk.usage !== undefined) {
        promptTokens = chunk.usage.prompt_tokens;
        cachedTokens = chunk.usage.prompt_tokens_details.cached_tokens;
      }
    }
  }
  if (response.status !== 200) finishReason = `http ${response.status}`;
  return { sentAt, firstTokenAt, finishReason, promptTokens, cachedTokens, text };
}
