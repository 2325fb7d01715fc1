// Runs one engine stream as one Responses response: engine events in, Responses events out (to
// whatever transport `emit` feeds), final response and the assistant's reply back. Used by the
// WebSocket and HTTP paths alike; the gateway's own time is measured apart from the engine's.
import type { ChatMessage, FinishReason, Timings, Usage } from "../../engines/engine.ts";
import type {
  IncompleteReason,
  ResponseFailure,
  ResponseObject,
} from "../../protocol/responses-events.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { GatewayClock } from "../gateway-clock.ts";
import type { PreparedTurn } from "./prepare-turn.ts";
import { clientFacingEngineError } from "../wire/engine-error.ts";
import {
  ResponseEventWriter,
  type EmitEvent,
  type ResponseEnding,
} from "./response-event-writer.ts";
import { sparkTimings } from "./spark-timings.ts";
import type { WriterResumeState } from "./writer-resume-state.ts";

/** Why a response was stopped early; passed as the AbortSignal's reason. */
export type StopReason = "cancelled" | "steered" | "disconnected" | "draining";

export interface ResponseRunOptions {
  turn: PreparedTurn;
  signal: AbortSignal;
  emit: EmitEvent;
  clock: GatewayClock;
  /** Continues a response another replica started instead of starting one. */
  resumeFrom?: WriterResumeState;
}

export interface ResponseRunResult {
  response: ResponseObject;
  /** The assistant's output as a conversation message (undefined when there was none). */
  reply: ChatMessage | undefined;
  error: SparkError | undefined;
  usage: Usage | undefined;
  timeToFirstTokenMs: number | null;
}

export async function runResponse(options: ResponseRunOptions): Promise<ResponseRunResult> {
  const { turn, signal, clock } = options;
  let startedAt = performance.now();
  const writer = new ResponseEventWriter(
    turn.skeleton,
    options.emit,
    turn.clientTools,
    clock,
    options.resumeFrom,
  );
  if (options.resumeFrom === undefined) writer.started();
  let usage: Usage | undefined;
  let timings: Timings | undefined;
  let finishReason: FinishReason | undefined;
  let error: SparkError | undefined;
  clock.addSince(startedAt);
  try {
    for await (const event of turn.engine.stream(turn.engineRequest, { signal })) {
      startedAt = performance.now();
      switch (event.type) {
        case "text-delta":
          if (turn.generate) writer.textDelta(event.text);
          break;
        case "reasoning-delta":
          if (turn.generate) writer.reasoningDelta(event.text);
          break;
        case "tool-call-start":
          if (turn.generate) writer.toolCallStarted(event.id, event.name);
          break;
        case "tool-call-delta":
          if (turn.generate) writer.toolCallDelta(event.id, event.argumentsDelta);
          break;
        case "tool-call-end":
          if (turn.generate) writer.toolCallEnded(event.id, event.name, event.arguments);
          break;
        case "usage":
          usage = event.usage;
          break;
        case "timings":
          timings = event.timings;
          break;
        case "finish":
          finishReason = event.reason;
          error = event.error === undefined ? undefined : clientFacingEngineError(event.error);
          break;
        default:
          event satisfies never;
      }
      clock.addSince(startedAt);
    }
  } catch (thrown) {
    // The Engine contract says stream() ends with a finish event rather than throwing; a broken
    // adapter still must not take the connection down.
    finishReason = "error";
    error = clientFacingEngineError(SparkError.from(thrown));
  }
  startedAt = performance.now();
  if (finishReason === undefined) {
    finishReason = "error";
    error = new SparkError(
      "internal_error",
      `The ${turn.engine.kind} engine ended its stream without finishing.`,
    );
  }
  const timeToFirstTokenMs =
    writer.firstOutputAt === undefined ? null : round(writer.firstOutputAt - turn.receivedAt);
  const ending = endingFor(finishReason, error, signal, turn.generate);
  if (usage !== undefined) ending.usage = responseUsage(usage);
  // The output items' done events are counted; only the final event, which carries the figure,
  // is written after it.
  writer.closeOutput(ending.status);
  clock.addSince(startedAt);
  ending.sparkTimings = sparkTimings(usage, timings, timeToFirstTokenMs, clock.overheadMs);
  const response = writer.finish(ending);
  return {
    response,
    reply: turn.generate ? writer.reply() : undefined,
    error:
      finishReason === "error"
        ? (error ?? new SparkError("internal_error", "The engine failed."))
        : undefined,
    usage,
    timeToFirstTokenMs,
  };
}

function endingFor(
  reason: FinishReason,
  error: SparkError | undefined,
  signal: AbortSignal,
  generate: boolean,
): ResponseEnding {
  const base = { usage: undefined, sparkTimings: null };
  switch (reason) {
    case "stop":
    case "tool_calls":
      return { ...base, status: "completed" };
    case "length":
      // A warm-up asks for one token on purpose; it completed what it was asked.
      return generate
        ? { ...base, status: "incomplete", incompleteReason: "max_output_tokens" }
        : { ...base, status: "completed" };
    case "cancelled":
      // A drain outlasted its grace period: a failure clients retry (Codex retries any
      // response.failed but a few codes), not an answer cut short.
      if (signal.reason === "draining") {
        const draining = new SparkError(
          "engine_busy",
          "This replica shut down before the response finished; send the request again.",
          { retryable: true, retryAfterMs: 1000, status: 503 },
        );
        return { ...base, status: "failed", error: responseFailure(draining) };
      }
      return { ...base, status: "incomplete", incompleteReason: stopReasonOf(signal) };
    case "error": {
      const failure = error ?? new SparkError("internal_error", "The engine failed.");
      return { ...base, status: "failed", error: responseFailure(failure) };
    }
    default:
      reason satisfies never;
      return {
        ...base,
        status: "failed",
        error: responseFailure(new SparkError("internal_error", "Unknown finish reason.")),
      };
  }
}

function responseFailure(error: SparkError): ResponseFailure {
  const code =
    error.code === "rate_limited"
      ? "rate_limit_exceeded"
      : error.code === "invalid_request" || error.code === "context_length_exceeded"
        ? "invalid_prompt"
        : "server_error";
  const failure: ResponseFailure = { code, message: error.message, spark_code: error.code };
  if (error.retryAfterMs !== undefined) failure.retry_after = Math.ceil(error.retryAfterMs / 1000);
  return failure;
}

function stopReasonOf(signal: AbortSignal): IncompleteReason {
  const reason: unknown = signal.reason;
  return reason === "steered" || reason === "disconnected" ? reason : "cancelled";
}

function responseUsage(usage: Usage): NonNullable<ResponseObject["usage"]> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: {
      cached_tokens: usage.cachedInputTokens,
      cache_write_tokens: usage.inputTokens - usage.cachedInputTokens,
    },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
