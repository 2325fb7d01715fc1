// Decodes a Responses API event stream (`response.output_text.delta`, function-call items,
// `response.completed` / `incomplete` / `failed`, `error`) into engine events. The API has no stop
// sequences, so they are applied here: text after a stop never reaches the reader.
import type { EngineEvent, Usage } from "../engine.ts";
import { StopMatcher } from "../stop-matcher.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { MappedFinishReason } from "./map-finish-reason.ts";
import { mapStreamError, type UpstreamErrorContext } from "./map-http-error.ts";

interface ResponsesEvent {
  type?: string;
  delta?: string;
  item_id?: string;
  item?: { type?: string; id?: string; call_id?: string; name?: string; arguments?: string };
  response?: {
    status?: string;
    usage?: {
      input_tokens?: number;
      output_tokens?: number;
      input_tokens_details?: { cached_tokens?: number };
    } | null;
    incomplete_details?: { reason?: string } | null;
    error?: { code?: string | null; message?: string | null } | null;
  };
  code?: string | null;
  message?: string | null;
}

export class ResponsesStreamDecoder {
  deltaCount = 0;
  characterCount = 0;
  private readonly stopMatcher: StopMatcher;
  private stopped = false;
  private finish: MappedFinishReason | undefined;
  private reportedUsage: Partial<Usage> | undefined;
  /** Function-call item id → its call id and name, for argument deltas that name only the item. */
  private readonly calls = new Map<string, { callId: string; name: string }>();
  private toolCallCount = 0;

  constructor(
    private readonly context: UpstreamErrorContext,
    stops: readonly string[] = [],
  ) {
    this.stopMatcher = new StopMatcher(stops);
  }

  get usage(): Partial<Usage> | undefined {
    return this.reportedUsage;
  }

  decode(data: string): EngineEvent[] {
    if (this.finish !== undefined) return [];
    const event = this.parse(data);
    switch (event.type) {
      case "response.output_text.delta":
        return this.text(event.delta ?? "");
      // Open models' reasoning text (vLLM, gpt-oss) and OpenAI's summaries of it: reasoning,
      // never answer text.
      case "response.reasoning_text.delta":
      case "response.reasoning_summary_text.delta":
        return this.reasoning(event.delta ?? "");
      case "response.output_item.added":
        if (event.item?.type !== "function_call" || this.stopped) return [];
        this.calls.set(event.item.id ?? "", {
          callId: event.item.call_id ?? "",
          name: event.item.name ?? "",
        });
        this.toolCallCount += 1;
        return [
          { type: "tool-call-start", id: event.item.call_id ?? "", name: event.item.name ?? "" },
        ];
      case "response.function_call_arguments.delta": {
        const call = this.calls.get(event.item_id ?? "");
        if (call === undefined || this.stopped) return [];
        this.deltaCount += 1;
        this.characterCount += (event.delta ?? "").length;
        return [{ type: "tool-call-delta", id: call.callId, argumentsDelta: event.delta ?? "" }];
      }
      case "response.output_item.done":
        if (event.item?.type !== "function_call" || this.stopped) return [];
        return [
          {
            type: "tool-call-end",
            id: event.item.call_id ?? "",
            name: event.item.name ?? "",
            arguments: event.item.arguments ?? "",
          },
        ];
      case "response.completed":
      case "response.incomplete":
        this.readUsage(event);
        return this.complete(event);
      case "response.failed":
        this.readUsage(event);
        throw mapStreamError(
          event.response?.error ?? { message: "the response failed" },
          this.context,
        );
      case "error":
        throw mapStreamError(
          { message: event.message ?? null, code: event.code ?? null },
          this.context,
        );
      default:
        return [];
    }
  }

  end(): { events: EngineEvent[]; finish: MappedFinishReason } {
    if (this.finish !== undefined) return { events: [], finish: this.finish };
    return {
      events: [],
      finish: {
        reason: "error",
        error: new SparkError(
          "protocol_error",
          `${this.context.baseUrl}: the response stream ended before response.completed.`,
          { retryable: true },
        ),
      },
    };
  }

  private reasoning(delta: string): EngineEvent[] {
    if (this.stopped || delta === "") return [];
    this.deltaCount += 1;
    this.characterCount += delta.length;
    return [{ type: "reasoning-delta", text: delta }];
  }

  private text(delta: string): EngineEvent[] {
    if (this.stopped || delta === "") return [];
    this.deltaCount += 1;
    this.characterCount += delta.length;
    const { emit, stopped } = this.stopMatcher.push(delta);
    if (stopped) this.stopped = true;
    return emit === "" ? [] : [{ type: "text-delta", text: emit }];
  }

  private complete(event: ResponsesEvent): EngineEvent[] {
    const rest = this.stopped ? "" : this.stopMatcher.flush();
    const events: EngineEvent[] = rest === "" ? [] : [{ type: "text-delta", text: rest }];
    if (this.stopped) this.finish = { reason: "stop" };
    else if (event.type === "response.incomplete")
      this.finish = {
        reason:
          event.response?.incomplete_details?.reason === "max_output_tokens" ? "length" : "stop",
      };
    else this.finish = { reason: this.toolCallCount > 0 ? "tool_calls" : "stop" };
    return events;
  }

  private readUsage(event: ResponsesEvent): void {
    const usage = event.response?.usage;
    if (usage === undefined || usage === null) return;
    this.reportedUsage = {
      ...(usage.input_tokens === undefined ? {} : { inputTokens: usage.input_tokens }),
      ...(usage.output_tokens === undefined ? {} : { outputTokens: usage.output_tokens }),
      cachedInputTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    };
  }

  private parse(data: string): ResponsesEvent {
    try {
      const value = JSON.parse(data) as unknown;
      if (typeof value === "object" && value !== null) return value;
    } catch {
      // Reported below with the data that failed.
    }
    throw new SparkError(
      "protocol_error",
      `${this.context.baseUrl} sent an event that is not valid JSON: ${data.slice(0, 200)}`,
      { retryable: true },
    );
  }
}
