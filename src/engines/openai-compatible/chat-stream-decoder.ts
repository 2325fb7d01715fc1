// Chat Completions SSE data payloads to Spark engine events: text deltas, tool calls assembled by
// index (start when the name is known, end at finish_reason or end of stream), usage, and the
// finish reason. Anything malformed is a protocol_error; an in-stream error object is mapped.
import { randomUUID } from "node:crypto";
import type { EngineEvent, Usage } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type {
  ChatCompletionsChunk,
  ChatCompletionsToolCallDelta,
} from "./chat-completions-wire.ts";
import { mapFinishReason, type MappedFinishReason } from "./map-finish-reason.ts";
import { mapStreamError, type UpstreamErrorContext } from "./map-http-error.ts";
import { mergeUsage, readChunkUsage } from "./read-chunk-usage.ts";

interface ToolCallState {
  index: number;
  id: string | undefined;
  name: string | undefined;
  arguments: string;
  started: boolean;
  ended: boolean;
}

export class ChatStreamDecoder {
  /** The call each index currently names, and every call in arrival order. */
  private readonly toolCallsByIndex = new Map<number, ToolCallState>();
  private readonly toolCalls: ToolCallState[] = [];
  private finishReason: MappedFinishReason | undefined;
  private sawDone = false;
  private reportedUsage: Partial<Usage> | undefined;
  /** Text and tool-argument deltas, for usage estimates and the stream clock. */
  deltaCount = 0;
  characterCount = 0;

  constructor(private readonly context: UpstreamErrorContext) {}

  get usage(): Partial<Usage> | undefined {
    return this.reportedUsage;
  }

  get done(): boolean {
    return this.sawDone;
  }

  /** Decodes one SSE `data` payload. Throws a SparkError for malformed data or upstream errors. */
  decode(data: string): EngineEvent[] {
    if (this.sawDone) return [];
    if (data.trim() === "[DONE]") {
      this.sawDone = true;
      return [];
    }
    const chunk = this.parse(data);
    if (chunk.error !== undefined && chunk.error !== null)
      throw mapStreamError(chunk.error, this.context);
    this.reportedUsage = mergeUsage(this.reportedUsage, readChunkUsage(chunk));
    const events: EngineEvent[] = [];
    for (const choice of chunk.choices ?? []) {
      // Spark asks for one choice; a server that sends more keeps the rest to itself.
      if (choice.index !== undefined && choice.index !== 0) continue;
      const delta = choice.delta;
      // Reasoning comes before the answer in a chunk; it is never answer text.
      const reasoning = delta?.reasoning_content ?? delta?.reasoning;
      if (typeof reasoning === "string" && reasoning !== "") {
        this.deltaCount += 1;
        this.characterCount += reasoning.length;
        events.push({ type: "reasoning-delta", text: reasoning });
      }
      if (typeof delta?.content === "string" && delta.content !== "") {
        this.deltaCount += 1;
        this.characterCount += delta.content.length;
        events.push({ type: "text-delta", text: delta.content });
      }
      for (const toolDelta of delta?.tool_calls ?? []) this.applyToolDelta(toolDelta, events);
      if (delta?.function_call !== undefined && delta.function_call !== null) {
        this.applyToolDelta({ index: 0, function: delta.function_call }, events);
      }
      if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
        this.finishReason = mapFinishReason(choice.finish_reason);
        this.endToolCalls(events);
      }
    }
    return events;
  }

  /**
   * The body ended. Closes tool calls still open and returns how the stream finished: a missing
   * finish_reason is fine after [DONE], and a protocol_error without it.
   */
  end(): { events: EngineEvent[]; finish: MappedFinishReason } {
    const events: EngineEvent[] = [];
    this.endToolCalls(events);
    if (this.finishReason !== undefined) {
      const anyToolCall = this.toolCalls.length > 0;
      // Some servers (older Ollama) say "stop" after tool calls; the calls are what matter.
      if (anyToolCall && this.finishReason.reason === "stop")
        return { events, finish: { reason: "tool_calls" } };
      return { events, finish: this.finishReason };
    }
    if (this.sawDone)
      return { events, finish: { reason: this.toolCalls.length > 0 ? "tool_calls" : "stop" } };
    return {
      events,
      finish: {
        reason: "error",
        error: new SparkError(
          "protocol_error",
          `${this.context.baseUrl}: upstream closed the stream before it finished (no finish_reason, no [DONE]).`,
          { retryable: true },
        ),
      },
    };
  }

  private parse(data: string): ChatCompletionsChunk {
    let value: unknown;
    try {
      value = JSON.parse(data) as unknown;
    } catch (error) {
      throw new SparkError(
        "protocol_error",
        `${this.context.baseUrl} sent a data line that is not valid JSON (cut off?): ${data.slice(0, 120)}`,
        { cause: error, retryable: true },
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new SparkError(
        "protocol_error",
        `${this.context.baseUrl} sent a data line that is not a JSON object.`,
      );
    }
    return value;
  }

  private applyToolDelta(delta: ChatCompletionsToolCallDelta, events: EngineEvent[]): void {
    const index = typeof delta.index === "number" ? delta.index : 0;
    let state = this.toolCallsByIndex.get(index);
    const id = typeof delta.id === "string" && delta.id !== "" ? delta.id : undefined;
    // Some servers reuse index 0 for every call; a new id at a known index is a new call.
    const isNewCall =
      state !== undefined && id !== undefined && state.id !== undefined && id !== state.id;
    if (state === undefined || isNewCall) {
      if (state !== undefined) this.endToolCall(state, events);
      state = {
        index,
        id: undefined,
        name: undefined,
        arguments: "",
        started: false,
        ended: false,
      };
      this.toolCallsByIndex.set(index, state);
      this.toolCalls.push(state);
    } else if (state.ended) {
      throw new SparkError(
        "protocol_error",
        `${this.context.baseUrl} continued tool call ${index} after it ended.`,
      );
    }
    if (id !== undefined) state.id ??= id;
    const name = delta.function?.name;
    if (typeof name === "string" && name !== "" && !state.started)
      state.name = (state.name ?? "") + name;
    const argumentsDelta = delta.function?.arguments;
    const hasArguments = typeof argumentsDelta === "string" && argumentsDelta !== "";
    if (hasArguments) {
      state.arguments += argumentsDelta;
      this.deltaCount += 1;
      this.characterCount += argumentsDelta.length;
    }
    if (!state.started) {
      // The name usually comes with the first delta; until it does, arguments wait in the buffer.
      if (state.name === undefined) return;
      state.id ??= `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
      state.started = true;
      events.push({ type: "tool-call-start", id: state.id, name: state.name });
      if (state.arguments !== "") {
        events.push({ type: "tool-call-delta", id: state.id, argumentsDelta: state.arguments });
      }
      return;
    }
    if (hasArguments && state.id !== undefined) {
      events.push({ type: "tool-call-delta", id: state.id, argumentsDelta });
    }
  }

  private endToolCalls(events: EngineEvent[]): void {
    for (const state of this.toolCalls) this.endToolCall(state, events);
  }

  private endToolCall(state: ToolCallState, events: EngineEvent[]): void {
    if (state.ended) return;
    if (!state.started || state.id === undefined || state.name === undefined) {
      throw new SparkError(
        "protocol_error",
        `${this.context.baseUrl} sent tool call ${state.index} without a function name.`,
      );
    }
    state.ended = true;
    events.push({
      type: "tool-call-end",
      id: state.id,
      name: state.name,
      arguments: state.arguments,
    });
  }
}
