// Server-side shapes of the OpenAI Responses API that Spark emits (the `openai` package's
// Response, ResponseStreamEvent and ResponseErrorEvent), plus Spark's additive `spark_timings`.

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

export interface ResponseOutputText {
  type: "output_text";
  text: string;
  annotations: never[];
  logprobs: never[];
}

export interface ResponseOutputMessage {
  type: "message";
  id: string;
  role: "assistant";
  status: "in_progress" | "completed" | "incomplete";
  content: ResponseOutputText[];
}

export interface ResponseFunctionCall {
  type: "function_call";
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: "in_progress" | "completed" | "incomplete";
  /** The namespace tool the function belongs to, when it belongs to one. */
  namespace?: string;
}

/** A call of a freeform tool: `input` is the model's free text. */
export interface ResponseCustomToolCall {
  type: "custom_tool_call";
  id: string;
  call_id: string;
  name: string;
  input: string;
  status: "in_progress" | "completed" | "incomplete";
  namespace?: string;
}

export type ResponseToolCallItem = ResponseFunctionCall | ResponseCustomToolCall;

/** Reasoning text as open models stream it (gpt-oss on OpenAI's API, vLLM): the model's own
 * thinking in `content`, no summary, nothing encrypted. */
export interface ResponseReasoningText {
  type: "reasoning_text";
  text: string;
}

export interface ResponseReasoningItem {
  type: "reasoning";
  id: string;
  summary: never[];
  content: ResponseReasoningText[];
  status: "in_progress" | "completed" | "incomplete";
}

export type ResponseOutputItem =
  ResponseOutputMessage | ResponseToolCallItem | ResponseReasoningItem;

export interface ResponseUsage {
  input_tokens: number;
  /** cache_write_tokens: input evaluated now and kept in the engine's cache for the chain. */
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** Spark extension: where the time of one response went. */
export interface SparkTimings {
  queue_ms: number;
  time_to_first_token_ms: number | null;
  prefill_tokens_cached: number;
  prefill_tokens_computed: number;
  /** Of prefill_tokens_cached, those the embedded engine loaded from its prefix cache on disk. */
  prefill_tokens_from_disk?: number;
  decode_tokens_per_second: number | null;
  /** Time spent in the gateway itself (parsing, conversation building, serialising, sending). */
  gateway_overhead_ms: number;
  /** The embedded engine's decode loop that ran: "native" (Spark's) or "node-llama-cpp". */
  decode_loop?: "native" | "node-llama-cpp";
  /**
   * Where the native loop sampled: "device" (llama.cpp's backend, the logits stay on the GPU),
   * "host", or "device+host" (a tool call's JSON samples on the host under its grammar).
   */
  sampling?: "device" | "host" | "device+host";
  /** Set when the router served the response: attempts, retries, fallbacks, waits. */
  routing?: SparkRoutingTimings;
}

export interface SparkRoutingTimings {
  /** The model that produced the output, or the last one tried. */
  model: string;
  attempts: {
    model: string;
    outcome: "ok" | "error" | "skipped";
    code?: string;
    duration_ms: number;
  }[];
  retries: number;
  fallbacks: number;
  backoff_ms: number;
  deadline_exceeded: boolean;
}

/** Spark extension: which route served a response and why, decided before it started. */
export interface SparkRoute {
  /** The alias or model the requested name came to ("fast", "deep", a configured model). */
  route: string;
  /** The fallback chain, primary first. */
  models: string[];
  /** One line for people, e.g. "auto → deep: security-sensitive work: mentions \"auth\"". */
  reason: string;
}

/** OpenAI sends `max_output_tokens` or `content_filter`; Spark adds why a stream was stopped early. */
export type IncompleteReason =
  "max_output_tokens" | "content_filter" | "cancelled" | "steered" | "disconnected";

/** OpenAI's error codes for a failed response, with Spark's own code alongside. */
export interface ResponseFailure {
  code: "server_error" | "rate_limit_exceeded" | "invalid_prompt";
  message: string;
  /** Spark extension: the SparkErrorCode (e.g. upstream_error), more precise than `code`. */
  spark_code: string;
  /** Spark extension: seconds to wait before retrying, from the upstream's Retry-After. */
  retry_after?: number;
}

export interface ResponseFunctionTool {
  type: "function";
  name: string;
  description: string | null;
  parameters: { [key: string]: unknown } | null;
  strict: boolean | null;
}

export interface ResponseCustomTool {
  type: "custom";
  name: string;
  description?: string;
  format?: { type: "text" } | { type: "grammar"; syntax: "lark" | "regex"; definition: string };
}

export interface ResponseNamespaceTool {
  type: "namespace";
  name: string;
  description: string;
  tools: Array<
    | {
        type: "function";
        name: string;
        description?: string | null;
        parameters?: unknown;
        strict?: boolean | null;
      }
    | ResponseCustomTool
  >;
}

/** `text.format` as a response echoes it: what the request asked for, text when nothing. */
export type ResponseTextFormatEcho =
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema";
      name: string;
      schema: { [key: string]: unknown };
      strict: boolean | null;
      description?: string;
    };

/** The tools a response echoes: the ones the engine was given (hosted tools are dropped). */
export type ResponseEchoedTool = ResponseFunctionTool | ResponseCustomTool | ResponseNamespaceTool;

export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  model: string;
  output: ResponseOutputItem[];
  error: ResponseFailure | null;
  incomplete_details: { reason: IncompleteReason } | null;
  instructions: string | null;
  metadata: { [key: string]: string } | null;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  tool_choice: "none" | "auto" | "required" | { type: "function" | "custom"; name: string };
  tools: ResponseEchoedTool[];
  previous_response_id: string | null;
  prompt_cache_key: string | null;
  store: boolean;
  /** The output format the request asked for, echoed (OpenAI's shape). */
  text: { format: ResponseTextFormatEcho };
  truncation: "disabled";
  /** Absent until the response ends (the SDK's type has no null here). */
  usage?: ResponseUsage;
  spark_timings: SparkTimings | null;
  /** Present when the router chose the model (see SparkRoute). */
  spark_route?: SparkRoute;
}

interface Sequenced {
  sequence_number: number;
}

export type ResponseLifecycleEvent = Sequenced & {
  type:
    | "response.created"
    | "response.in_progress"
    | "response.completed"
    | "response.incomplete"
    | "response.failed";
  response: ResponseObject;
};

export interface ResponseOutputItemEvent extends Sequenced {
  type: "response.output_item.added" | "response.output_item.done";
  output_index: number;
  item: ResponseOutputItem;
}

export interface ResponseContentPartEvent extends Sequenced {
  type: "response.content_part.added" | "response.content_part.done";
  item_id: string;
  output_index: number;
  content_index: number;
  part: ResponseOutputText | ResponseReasoningText;
}

export interface ResponseTextDeltaEvent extends Sequenced {
  type: "response.output_text.delta";
  item_id: string;
  output_index: number;
  content_index: number;
  delta: string;
  logprobs: never[];
}

export interface ResponseTextDoneEvent extends Sequenced {
  type: "response.output_text.done";
  item_id: string;
  output_index: number;
  content_index: number;
  text: string;
  logprobs: never[];
}

export interface ResponseReasoningTextDeltaEvent extends Sequenced {
  type: "response.reasoning_text.delta";
  item_id: string;
  output_index: number;
  content_index: number;
  delta: string;
}

export interface ResponseReasoningTextDoneEvent extends Sequenced {
  type: "response.reasoning_text.done";
  item_id: string;
  output_index: number;
  content_index: number;
  text: string;
}

export interface ResponseFunctionCallArgumentsDeltaEvent extends Sequenced {
  type: "response.function_call_arguments.delta";
  item_id: string;
  output_index: number;
  delta: string;
}

export interface ResponseFunctionCallArgumentsDoneEvent extends Sequenced {
  type: "response.function_call_arguments.done";
  item_id: string;
  output_index: number;
  name: string;
  arguments: string;
}

export interface ResponseCustomToolCallInputDeltaEvent extends Sequenced {
  type: "response.custom_tool_call_input.delta";
  item_id: string;
  output_index: number;
  delta: string;
}

export interface ResponseCustomToolCallInputDoneEvent extends Sequenced {
  type: "response.custom_tool_call_input.done";
  item_id: string;
  output_index: number;
  input: string;
}

/**
 * An error event. `code`, `message` and `param` are the SDK's ResponseErrorEvent; `error` and
 * `status` repeat them the way OpenAI's WebSocket mode nests them, for clients that read either.
 */
export interface ResponseErrorEvent extends Sequenced {
  type: "error";
  code: string;
  message: string;
  param: string | null;
  status: number;
  error: {
    type: string;
    code: string;
    message: string;
    param: string | null;
    /** Spark extension: seconds to wait before retrying (a rate limit's Retry-After). */
    retry_after?: number;
  };
  /** Spark extension: the response the error belongs to, when there is one. */
  response_id?: string;
}

/** OpenAI's steering acknowledgement: the input is queued; the successor's response.created
 * is where it is committed. */
export interface ResponseSteerAcceptedEvent extends Sequenced {
  type: "response.steer.accepted";
  steer: { id: string; previous_response_id: string };
}

export type SteerFailureCode = "response_not_found" | "too_many_pending_steers" | "invalid_input";

/** Steering input that was refused or could not be committed, returned to the client. */
export interface ResponseSteerFailedEvent extends Sequenced {
  type: "response.steer.failed";
  steer: { id?: string; previous_response_id: string | null; input: unknown };
  error: { code: SteerFailureCode; message: string };
}

/** A client-owned result a continuation must carry: the output item, less its result field. */
export interface RequiredInputStub {
  type: "function_call_output" | "custom_tool_call_output";
  call_id: string;
}

/**
 * Accepted steering input still queued after its response completed waiting for tool output: the
 * client sends the outputs (the stubs filled) in one response.create with previous_response_id,
 * and the queued input is prepended to that continuation's input.
 */
export interface ResponseSteerPendingEvent extends Sequenced {
  type: "response.steer.pending";
  steer: { id: string; previous_response_id: string };
  reason: "waiting_for_required_input";
  required_input: RequiredInputStub[];
}

/** Events of a WebSocket connection rather than of one response's stream. */
export type ResponseConnectionEvent =
  ResponseSteerAcceptedEvent | ResponseSteerFailedEvent | ResponseSteerPendingEvent;

export type ResponseDeltaEvent =
  | ResponseTextDeltaEvent
  | ResponseReasoningTextDeltaEvent
  | ResponseFunctionCallArgumentsDeltaEvent;

export type ResponseServerEvent =
  | ResponseLifecycleEvent
  | ResponseOutputItemEvent
  | ResponseContentPartEvent
  | ResponseTextDeltaEvent
  | ResponseTextDoneEvent
  | ResponseReasoningTextDeltaEvent
  | ResponseReasoningTextDoneEvent
  | ResponseFunctionCallArgumentsDeltaEvent
  | ResponseFunctionCallArgumentsDoneEvent
  | ResponseCustomToolCallInputDeltaEvent
  | ResponseCustomToolCallInputDoneEvent
  | ResponseErrorEvent;
