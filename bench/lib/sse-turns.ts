// Turns over the stateless HTTP paths, recorded like WebSocket turns: POST /v1/responses with
// stream:true (Spark) and POST /v1/chat/completions streaming (Spark and llama-server alike).
import type { Dispatcher } from "undici";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { postSse } from "./sse-client.ts";
import { applyFinalResponse, emptyTurnRecord, type TurnRecord } from "./turn-record.ts";

export interface SseTurnOptions {
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  countTokens?: (delta: string) => number;
  /** Close the connection after the response instead of keeping it alive (llama-server). */
  freshConnection?: boolean;
}

export async function runResponsesSseTurn(
  baseUrl: string,
  body: Record<string, unknown>,
  options: SseTurnOptions = {},
): Promise<TurnRecord> {
  const record = emptyTurnRecord(performance.now(), 0);
  const result = await postSse(
    `${baseUrl}/v1/responses`,
    { ...body, stream: true },
    (event, at) => {
      const parsed = JSON.parse(event.data) as {
        type: string;
        delta?: string;
        response?: unknown;
        message?: string;
      };
      if (parsed.type === "response.output_text.delta") {
        addDelta(record, parsed.delta ?? "", at, options);
      } else if (
        parsed.type === "response.completed" ||
        parsed.type === "response.incomplete" ||
        parsed.type === "response.failed"
      ) {
        record.endedAt = at;
        applyFinalResponse(record, parsed.response);
      } else if (parsed.type === "error") {
        throw new SparkError("upstream_error", `Server error event: ${event.data.slice(0, 300)}`);
      }
    },
    options,
  );
  record.sentAt = result.sentAt;
  record.bytesSent = result.bytesSent;
  return record;
}

interface ChatChunk {
  choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number };
  } | null;
  timings?: { prompt_n?: number; cache_n?: number; predicted_n?: number };
  spark_timings?: TurnRecord["sparkTimings"];
}

/** A streamed Chat Completions turn; usage comes from the include_usage chunk (or llama-server's
 * own `timings`, which carry how many prompt tokens it took from its cache). */
export async function runChatCompletionsTurn(
  baseUrl: string,
  body: Record<string, unknown>,
  options: SseTurnOptions = {},
): Promise<TurnRecord> {
  const record = emptyTurnRecord(performance.now(), 0);
  const result = await postSse(
    `${baseUrl}/v1/chat/completions`,
    { ...body, stream: true, stream_options: { include_usage: true } },
    (event, at) => {
      if (event.data === "[DONE]") {
        record.endedAt = at;
        return;
      }
      const chunk = JSON.parse(event.data) as ChatChunk & { error?: unknown };
      if (chunk.error !== undefined) {
        throw new SparkError("upstream_error", `Server error chunk: ${event.data.slice(0, 300)}`);
      }
      record.endedAt = at;
      const choice = chunk.choices?.[0];
      const content = choice?.delta?.content;
      if (typeof content === "string" && content !== "") addDelta(record, content, at, options);
      if (typeof choice?.finish_reason === "string") record.status = choice.finish_reason;
      if (chunk.usage != null) {
        record.inputTokens = chunk.usage.prompt_tokens ?? null;
        record.outputTokens = chunk.usage.completion_tokens ?? null;
        record.cachedInputTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? null;
      }
      if (chunk.timings?.cache_n !== undefined) record.cachedInputTokens = chunk.timings.cache_n;
      if (chunk.spark_timings != null) record.sparkTimings = chunk.spark_timings;
    },
    options,
  );
  record.sentAt = result.sentAt;
  record.bytesSent = result.bytesSent;
  return record;
}

function addDelta(record: TurnRecord, delta: string, at: number, options: SseTurnOptions): void {
  record.firstDeltaAt ??= at;
  record.lastDeltaAt = at;
  record.deltaCount += 1;
  record.text += delta;
  record.arrivals.push({ at, tokens: options.countTokens?.(delta) ?? 1 });
}
