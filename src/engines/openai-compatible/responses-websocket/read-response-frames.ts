// Reads one response's frames from a Responses WebSocket into engine events, and says how the
// attempt ended: finished (with the upstream's own ending), or a case the caller recovers from
// (the chain was lost, the socket closed before any output), or aborted, or broken (timeout,
// drop mid-stream: the socket is unusable).
import type { EngineEvent } from "../../engine.ts";
import type { StreamClock } from "../../stream-clock.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import type { MappedFinishReason } from "../map-finish-reason.ts";
import { upstreamTimeoutError, type UpstreamErrorContext } from "../map-http-error.ts";
import type { ResponsesStreamDecoder } from "../responses-stream-decoder.ts";
import type { ResponseOutput } from "./response-chain.ts";
import type { ResponsesSocket } from "./responses-socket.ts";
import { mapWebSocketError, readWebSocketError } from "./map-websocket-error.ts";

export type AttemptEnd =
  | { kind: "finished"; finish: MappedFinishReason }
  /** `previous_response_not_found` before any output: send the whole conversation instead. */
  | { kind: "resend-full" }
  /** The socket closed or hit its limit before any output: worth one new socket. */
  | { kind: "reconnect"; error: SparkError }
  | { kind: "aborted" }
  /** The socket can no longer be trusted (stalled, dropped, sent garbage). */
  | { kind: "broken"; finish: MappedFinishReason };

export interface AttemptState {
  /** From `response.created`; what `response.cancel` and the next `previous_response_id` name. */
  responseId: string | undefined;
  /** Everything the upstream produced, before client-side stop strings. */
  output: ResponseOutput;
  /** True once an engine event reached the reader: from then on nothing may be retried. */
  emitted: boolean;
  /** The upstream finished the response (`completed` or `incomplete`): the chain moves on. */
  completed: boolean;
}

export interface ReadOptions {
  firstByteMs: number;
  idleMs: number;
  signal: AbortSignal | undefined;
  /** The request continued a chain (`previous_response_id`), so losing it is recoverable. */
  continued: boolean;
  /** The engine was disposed while reading. */
  stopped: () => SparkError | undefined;
}

interface Frame {
  type?: unknown;
  delta?: unknown;
  response?: { id?: unknown };
  item?: { type?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown };
}

export async function* readResponseFrames(
  socket: ResponsesSocket,
  decoder: ResponsesStreamDecoder,
  clock: StreamClock,
  errorContext: UpstreamErrorContext,
  options: ReadOptions,
  state: AttemptState,
): AsyncGenerator<EngineEvent, AttemptEnd> {
  let timeoutMs = options.firstByteMs;
  for (;;) {
    const message = await socket.next(timeoutMs, options.signal);
    timeoutMs = options.idleMs;
    const disposed = options.stopped();
    if (disposed !== undefined)
      return { kind: "broken", finish: { reason: "error", error: disposed } };
    switch (message.type) {
      case "aborted":
        return { kind: "aborted" };
      case "timeout": {
        const error = upstreamTimeoutError(state.emitted ? "idle" : "first-byte", errorContext);
        return { kind: "broken", finish: { reason: "error", error } };
      }
      case "closed":
        if (!state.emitted) return { kind: "reconnect", error: message.error };
        return { kind: "broken", finish: { reason: "error", error: message.error } };
      case "frame":
        break;
      default:
        return message satisfies never;
    }
    let frame: Frame;
    try {
      frame = JSON.parse(message.text) as Frame;
    } catch {
      const error = new SparkError(
        "protocol_error",
        `${errorContext.baseUrl} sent a WebSocket frame that is not JSON: ${message.text.slice(0, 200)}`,
        { retryable: true },
      );
      return { kind: "broken", finish: { reason: "error", error } };
    }
    if (frame.type === "error") {
      const detail = readWebSocketError(frame);
      if (detail.code === "previous_response_not_found" && options.continued && !state.emitted)
        return { kind: "resend-full" };
      const error = mapWebSocketError(frame, errorContext);
      if (detail.code === "websocket_connection_limit_reached") {
        socket.retiring = true;
        if (!state.emitted) return { kind: "reconnect", error };
      }
      return { kind: "finished", finish: { reason: "error", error } };
    }
    record(frame, state);
    let events: EngineEvent[];
    try {
      events = decoder.decode(message.text);
    } catch (error) {
      // response.failed: the upstream ended this response; the socket is fine.
      return {
        kind: "finished",
        finish: { reason: "error", error: SparkError.from(error, "protocol_error") },
      };
    }
    for (const event of events) {
      if (event.type === "text-delta" || event.type === "tool-call-delta") clock.markToken();
      else if (event.type === "tool-call-start") clock.markToken(0);
      state.emitted = true;
      yield event;
      if (options.signal?.aborted === true) return { kind: "aborted" };
    }
    if (state.completed) {
      const ended = decoder.end();
      for (const event of ended.events) yield event;
      return { kind: "finished", finish: ended.finish };
    }
  }
}

/** Keeps what the chain needs: the response id, the raw output, and whether it completed. */
function record(frame: Frame, state: AttemptState): void {
  switch (frame.type) {
    case "response.created":
      if (typeof frame.response?.id === "string") state.responseId = frame.response.id;
      return;
    case "response.output_text.delta":
      if (typeof frame.delta === "string") state.output.text += frame.delta;
      return;
    case "response.output_item.done": {
      const item = frame.item;
      if (item?.type !== "function_call") return;
      state.output.calls.push({
        callId: textOf(item.call_id),
        name: textOf(item.name),
        arguments: textOf(item.arguments),
      });
      return;
    }
    case "response.completed":
    case "response.incomplete":
      if (typeof frame.response?.id === "string") state.responseId ??= frame.response.id;
      state.completed = true;
      return;
    default:
      return;
  }
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}
