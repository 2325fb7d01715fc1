// The one Engine contract: a request in, an AsyncIterable of typed events out. Every adapter
// (embedded llama.cpp, OpenAI-compatible HTTP, scripted, synthetic) implements exactly this.
import type { SparkError } from "../protocol/spark-error.ts";
import type { Usage } from "../protocol/usage.ts";

export type JsonSchema = { [key: string]: unknown };

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments, exactly as the model produced it. */
  arguments: string;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string;
      toolCalls?: ToolCall[];
      /** The model's reasoning before this turn's answer, for engines whose template takes it
       * back (gpt-oss's analysis channel before a call); others leave it out of the prompt. */
      reasoning?: string;
    }
  | { role: "tool"; toolCallId: string; name?: string; content: string };

export interface ToolDefinition {
  name: string;
  description?: string;
  parameters: JsonSchema;
}

export interface SamplingOptions {
  temperature?: number;
  topP?: number;
  /** Keep the k most likely tokens; 0 keeps all (the wire's -1 too). Unset: the engine's default. */
  topK?: number;
  /** Drop tokens below this share of the most likely one's probability; 0 keeps all. */
  minP?: number;
  /** OpenAI's penalties, in [-2, 2]; engines that cannot apply them refuse a non-zero value. */
  presencePenalty?: number;
  frequencyPenalty?: number;
  maxOutputTokens?: number;
  stop?: string[];
  seed?: number;
}

/** "auto": the model decides; "required": it must call some tool; {name}: it must call that one. */
export type ToolChoice = "auto" | "none" | "required" | { name: string };

/**
 * Structured output: the answer's text must be JSON, one object (`json_object`) or a value valid
 * against `schema`. Tool calls are not affected; a forced tool call leaves no text to constrain.
 * An engine that cannot enforce it refuses the request (invalid_request); none ignores it.
 */
export type OutputFormat =
  | {
      type: "json_schema";
      /** The client's name for the schema (OpenAI's `name`), echoed and logged. */
      name: string;
      schema: JsonSchema;
      /** As the client sent it; the embedded engine always enforces the schema exactly. */
      strict?: boolean;
      description?: string;
    }
  | { type: "json_object" };

/** A file the editor sends as context for a fill-in-the-middle completion. */
export interface CompletionContextChunk {
  filename: string;
  text: string;
}

/**
 * A raw completion prompt instead of a chat: no chat template. With `suffix` it is a
 * fill-in-the-middle request, rendered with the model's FIM tokens or its configured template.
 */
export interface CompletionPrompt {
  prefix: string;
  suffix?: string;
  /** Other files first (they change least, so they stay cached), then this file. */
  extra?: CompletionContextChunk[];
  /** The file being edited, named in repository-level FIM prompts. */
  filename?: string;
  /** The start of the middle the user has already typed (after the FIM middle token). */
  middle?: string;
}

export interface EngineRequest {
  /** Model name as the engine knows it; engines serving one model may ignore it. */
  model?: string;
  /** The conversation; empty for a `completion` request. */
  messages: ChatMessage[];
  /** Raw completion (FIM) instead of a chat; an engine without it refuses with `fim_unsupported`. */
  completion?: CompletionPrompt;
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** false: at most one tool call per answer (the APIs' parallel_tool_calls); default: the model's own. */
  parallelToolCalls?: boolean;
  sampling?: SamplingOptions;
  /** The answer's text must be JSON of this shape (Responses text.format, Chat response_format). */
  outputFormat?: OutputFormat;
  /** Text the output is expected to mostly repeat (edits): enables speculative decoding. */
  prediction?: string;
  /**
   * The client's cache key (prompt_cache_key): the same key reuses the same cached conversation,
   * and an upstream that takes one (the Responses API) is sent it as its `prompt_cache_key`.
   */
  sessionKey?: string;
  /**
   * Keeps a conversation without a sessionKey together across turns in Spark's own pools (one
   * embedded sequence, one upstream WebSocket, one replica): the gateway's name for a
   * `previous_response_id` chain. Never sent upstream. Read both through `cacheAffinityKey`.
   */
  affinityKey?: string;
  /**
   * Who may share cached state (the gateway's tenant). A cache another scope left behind is never
   * reused, so no tenant can read another's prompt back through cached tokens. Unset: one scope.
   */
  cacheScope?: string;
  /**
   * Warm-up: evaluate the prompt into the cache and finish ("stop") without output. An engine
   * that cannot prefill on its own generates within `maxOutputTokens`; the caller drops that.
   */
  prefillOnly?: boolean;
  /**
   * The last message is the assistant's answer so far: continue it rather than start a new turn
   * (a gateway replica continuing a response whose replica died). An engine that cannot refuses
   * with `continuation_unsupported` before any output; the gateway then re-runs the request.
   */
  continueFinalMessage?: boolean;
}

export interface EngineStreamOptions {
  signal?: AbortSignal;
}

export type { Usage } from "../protocol/usage.ts";

/** Where a stream's tokens were sampled (Timings.sampling). */
export type SamplingPlace = "device" | "host" | "device+host";

export interface Timings {
  /** Waiting for a free sequence/connection before any work began. */
  queueMs: number;
  /** From the call to stream() until the first output token (text or tool call). */
  timeToFirstTokenMs: number | null;
  /** Prompt evaluation; for remote engines, request sent to first byte of output. */
  prefillMs: number;
  /** From the first output token to the last. */
  decodeMs: number;
  decodeTokensPerSecond: number | null;
  totalMs: number;
  /**
   * The embedded engine's decode loop that ran the stream: Spark's native loop, or node-llama-cpp's
   * (the fallback, and tool syntaxes the native loop does not speak). Unset for other engines.
   */
  decodeLoop?: "native" | "node-llama-cpp";
  /**
   * Where the native loop sampled the stream's tokens: on llama.cpp's backend ("device"), on the
   * host, or both (a tool call's JSON under its grammar samples on the host). Unset elsewhere.
   */
  sampling?: SamplingPlace;
  /** Set by the router when it served the request through a fallback chain. */
  routing?: RoutingTimings;
}

/** What the router did for one request: every attempt, its outcome and the waits between. */
export interface RoutingTimings {
  /** The model that produced the output, or the last one tried. */
  model: string;
  attempts: RouteAttempt[];
  retries: number;
  fallbacks: number;
  /** Time spent waiting between attempts (backoff and `retry-after`). */
  backoffMs: number;
  deadlineExceeded: boolean;
}

export interface RouteAttempt {
  model: string;
  /** "skipped": its circuit breaker was open, nothing was sent. */
  outcome: "ok" | "error" | "skipped";
  /** The SparkError code of a failed attempt. */
  code?: string;
  durationMs: number;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "cancelled" | "error";

export type EngineEvent =
  | { type: "text-delta"; text: string }
  /**
   * The model's reasoning (`<think>`, Harmony's analysis channel, an upstream's
   * `reasoning_content`): never answer text. A block ends where other output starts or the stream
   * finishes, so no end event is needed.
   */
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-call-start"; id: string; name: string }
  | { type: "tool-call-delta"; id: string; argumentsDelta: string }
  | { type: "tool-call-end"; id: string; name: string; arguments: string }
  | { type: "usage"; usage: Usage }
  | { type: "timings"; timings: Timings }
  | { type: "finish"; reason: FinishReason; error?: SparkError };

export interface ModelInfo {
  id: string;
  engine: string;
  contextLength?: number;
  /** Why the context is contextLength tokens (configured, or chosen at load), where chosen. */
  contextLengthReason?: string;
  /** Said once at load: the model's chat template cannot run as the engine would, and what that
   * means for tools (engines/llama-cpp/chat-format/chat-format-notice.ts). */
  loadNotice?: string;
}

/**
 * A source of model output. `stream()` never throws for request or upstream problems: those end
 * the stream with `{type: "finish", reason: "error", error}`. Aborting the signal ends it with
 * `reason: "cancelled"` after the partial output. Every stream ends with exactly one `finish`,
 * preceded by `usage` and `timings`.
 */
export interface Engine extends AsyncDisposable {
  readonly kind: string;
  stream(request: EngineRequest, options?: EngineStreamOptions): AsyncIterable<EngineEvent>;
  /**
   * The refusal stream() would end with for a request it cannot serve, found before any output
   * where finding it takes the engine's own work (compiling a structured-output grammar): a
   * gateway asks first, so a streamed request is still refused with an HTTP 400. Optional: without
   * it, the refusal arrives as the stream's finish.
   */
  checkRequest?(
    request: EngineRequest,
    options?: EngineStreamOptions,
  ): Promise<SparkError | undefined>;
  listModels(): Promise<ModelInfo[]>;
  dispose(): Promise<void>;
}
