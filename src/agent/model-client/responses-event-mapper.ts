// Maps the gateway's Responses stream events back to Engine events, so the agent sees a remote
// model exactly as it sees one in process; also rebuilds the reply for chaining the next request.
import type {
  ChatMessage,
  EngineEvent,
  FinishReason,
  Timings,
  ToolCall,
  Usage,
} from "../../engines/engine.ts";
import type { ResponseObject, ResponseServerEvent } from "../../protocol/responses-events.ts";
import { SparkError, type SparkErrorCode } from "../../protocol/spark-error.ts";
import type { StreamClock } from "../../engines/stream-clock.ts";

const SPARK_ERROR_CODES: Record<SparkErrorCode, true> = {
  invalid_request: true,
  invalid_config: true,
  model_not_found: true,
  model_file_missing: true,
  model_file_invalid: true,
  model_load_failed: true,
  context_length_exceeded: true,
  fim_unsupported: true,
  continuation_unsupported: true,
  authentication_failed: true,
  permission_denied: true,
  rate_limited: true,
  upstream_error: true,
  upstream_timeout: true,
  network_error: true,
  protocol_error: true,
  cancelled: true,
  engine_disposed: true,
  engine_busy: true,
  download_failed: true,
  checksum_mismatch: true,
  offline: true,
  store_unavailable: true,
  internal_error: true,
};

/** A wire code (usually the Spark code itself) as a SparkErrorCode. */
export function toSparkErrorCode(
  code: string | undefined,
  fallback: SparkErrorCode = "upstream_error",
): SparkErrorCode {
  if (code !== undefined && Object.hasOwn(SPARK_ERROR_CODES, code)) return code as SparkErrorCode;
  if (code === "previous_response_not_found" || code === "invalid_prompt") return "invalid_request";
  if (code === "rate_limit_exceeded") return "rate_limited";
  if (code === "invalid_api_key") return "authentication_failed";
  return fallback;
}

export class ResponsesEventMapper {
  responseId: string | undefined;
  /** Set once the stream's finish event was produced. */
  finished = false;
  /** The gateway said the response is over (a terminal event or an error event). */
  responseEnded = false;
  /** The response ended `completed`: the gateway holds it for previous_response_id. */
  completed = false;
  private text = "";
  private readonly toolCalls: ToolCall[] = [];
  /** function_call item id → call id, for argument deltas that name only the item. */
  private readonly callIds = new Map<string, string>();
  private outputTokens = 0;
  /** The gateway router's decision, from response.created (absent without a router). */
  route: ResponseObject["spark_route"];

  constructor(private readonly clock: StreamClock) {}

  map(event: ResponseServerEvent): EngineEvent[] {
    switch (event.type) {
      case "response.created":
      case "response.in_progress":
        this.responseId = event.response.id;
        if (event.type === "response.created") this.route = event.response.spark_route;
        return [];
      case "response.output_text.delta":
        this.text += event.delta;
        this.outputTokens += 1;
        this.clock.markToken();
        return [{ type: "text-delta", text: event.delta }];
      case "response.reasoning_text.delta":
        this.outputTokens += 1;
        this.clock.markToken();
        return [{ type: "reasoning-delta", text: event.delta }];
      case "response.output_item.added":
        if (event.item.type !== "function_call") return [];
        this.callIds.set(event.item.id, event.item.call_id);
        this.clock.markToken();
        return [{ type: "tool-call-start", id: event.item.call_id, name: event.item.name }];
      case "response.function_call_arguments.delta":
        this.outputTokens += 1;
        return [
          {
            type: "tool-call-delta",
            id: this.callIds.get(event.item_id) ?? event.item_id,
            argumentsDelta: event.delta,
          },
        ];
      case "response.output_item.done": {
        if (event.item.type !== "function_call") return [];
        const call = {
          id: event.item.call_id,
          name: event.item.name,
          arguments: event.item.arguments,
        };
        this.toolCalls.push(call);
        return [{ type: "tool-call-end", ...call }];
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        this.responseEnded = true;
        return this.finish(event.response);
      case "error":
        if (
          event.response_id !== undefined &&
          this.responseId !== undefined &&
          event.response_id !== this.responseId
        )
          return [];
        this.responseEnded = true;
        return this.fail(
          new SparkError(toSparkErrorCode(event.code), event.message, { status: event.status }),
        );
      // (The agent offers function tools only: no custom tool call input reaches it.)
      case "response.content_part.added":
      case "response.content_part.done":
      case "response.output_text.done":
      case "response.reasoning_text.done":
      case "response.function_call_arguments.done":
      case "response.custom_tool_call_input.delta":
      case "response.custom_tool_call_input.done":
        return [];
      default:
        event satisfies never;
        return [];
    }
  }

  /** Ends the stream with an error (transport failure, or an error event). */
  fail(error: SparkError): EngineEvent[] {
    if (this.finished) return [];
    this.finished = true;
    return [...this.closingEvents(undefined), { type: "finish", reason: "error", error }];
  }

  /** The transport ended because the caller aborted: partial output, finish `cancelled`. */
  cancel(): EngineEvent[] {
    if (this.finished) return [];
    this.finished = true;
    return [...this.closingEvents(undefined), { type: "finish", reason: "cancelled" }];
  }

  reply(): ChatMessage {
    return this.toolCalls.length > 0
      ? { role: "assistant", content: this.text, toolCalls: [...this.toolCalls] }
      : { role: "assistant", content: this.text };
  }

  private finish(response: ResponseObject): EngineEvent[] {
    if (this.finished) return [];
    this.finished = true;
    this.responseId = response.id;
    let reason: FinishReason;
    let error: SparkError | undefined;
    if (response.status === "completed") {
      this.completed = true;
      reason = this.toolCalls.length > 0 ? "tool_calls" : "stop";
    } else if (response.status === "incomplete") {
      const why = response.incomplete_details?.reason;
      reason =
        why === "max_output_tokens" ? "length" : why === "disconnected" ? "error" : "cancelled";
      if (reason === "error")
        error = new SparkError(
          "network_error",
          "The gateway lost the connection to this response.",
        );
    } else {
      reason = "error";
      error = new SparkError(
        toSparkErrorCode(response.error?.spark_code ?? response.error?.code),
        response.error?.message ?? "The response failed.",
      );
    }
    const closing = this.closingEvents(response);
    return [
      ...closing,
      error === undefined ? { type: "finish", reason } : { type: "finish", reason, error },
    ];
  }

  private closingEvents(response: ResponseObject | undefined): EngineEvent[] {
    const usage: Usage = {
      inputTokens: response?.usage?.input_tokens ?? 0,
      cachedInputTokens: response?.usage?.input_tokens_details.cached_tokens ?? 0,
      outputTokens: response?.usage?.output_tokens ?? this.outputTokens,
    };
    const timings: Timings = this.clock.timings(usage.outputTokens);
    const remote = response?.spark_timings;
    if (remote != null) timings.queueMs = remote.queue_ms;
    return [
      { type: "usage", usage },
      { type: "timings", timings },
    ];
  }
}
