// One client-observed turn, the same record for every transport (WebSocket, SSE, Chat Completions,
// llama-server), so scenarios compare like with like. Times are this process's performance.now().

export interface SparkTimingsWire {
  queue_ms: number;
  time_to_first_token_ms: number | null;
  prefill_tokens_cached: number;
  prefill_tokens_computed: number;
  decode_tokens_per_second: number | null;
  gateway_overhead_ms: number;
}

export interface TurnRecord {
  sentAt: number;
  firstDeltaAt: number | null;
  lastDeltaAt: number | null;
  endedAt: number;
  /** Request payload bytes: the WebSocket message, or the HTTP request body (headers excluded). */
  bytesSent: number;
  deltaCount: number;
  /** Per delta: arrival time and how many tokens it carries (when the caller counts them). */
  arrivals: Array<{ at: number; tokens: number }>;
  text: string;
  /** Final state: "completed", "incomplete", "failed", or a Chat Completions finish_reason. */
  status: string;
  responseId: string | undefined;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  sparkTimings: SparkTimingsWire | null;
}

export function emptyTurnRecord(sentAt: number, bytesSent: number): TurnRecord {
  return {
    sentAt,
    firstDeltaAt: null,
    lastDeltaAt: null,
    endedAt: sentAt,
    bytesSent,
    deltaCount: 0,
    arrivals: [],
    text: "",
    status: "unknown",
    responseId: undefined,
    inputTokens: null,
    cachedInputTokens: null,
    outputTokens: null,
    sparkTimings: null,
  };
}

/** Applies a Responses final response object (completed/incomplete/failed) to the record. */
export function applyFinalResponse(record: TurnRecord, response: unknown): void {
  if (typeof response !== "object" || response === null) return;
  const final = response as {
    id?: string;
    status?: string;
    usage?: {
      input_tokens?: number;
      output_tokens?: number;
      input_tokens_details?: { cached_tokens?: number };
    } | null;
    spark_timings?: SparkTimingsWire | null;
  };
  record.responseId = final.id;
  record.status = final.status ?? record.status;
  record.inputTokens = final.usage?.input_tokens ?? null;
  record.outputTokens = final.usage?.output_tokens ?? null;
  record.cachedInputTokens = final.usage?.input_tokens_details?.cached_tokens ?? null;
  record.sparkTimings = final.spark_timings ?? null;
}

/** Decode rate seen by the client: tokens after the first, over first to last delta. */
export function clientDecodeTokensPerSecond(record: TurnRecord): number | null {
  const tokens = record.outputTokens ?? record.deltaCount;
  if (record.firstDeltaAt === null || record.lastDeltaAt === null || tokens < 2) return null;
  const seconds = (record.lastDeltaAt - record.firstDeltaAt) / 1000;
  return seconds > 0 ? (tokens - 1) / seconds : null;
}

export function timeToFirstDelta(record: TurnRecord): number | null {
  return record.firstDeltaAt === null ? null : record.firstDeltaAt - record.sentAt;
}
