// One streamed Chat Completions call from request to `finish`: validation before any I/O, the
// HTTP exchange, SSE decoding, and an ending that always carries usage, timings and exactly one
// finish, whether the stream completed, failed, was cancelled or its engine was disposed.
import type { Dispatcher } from "undici";
import type { EngineEvent, EngineRequest } from "../engine.ts";
import { endStream } from "../end-stream.ts";
import { StreamClock } from "../stream-clock.ts";
import {
  refuseCompletion,
  refuseContinuation,
  refusePenalties,
  validateEngineRequest,
} from "../validate-request.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { buildChatRequestBody } from "./build-chat-request-body.ts";
import { buildResponsesRequestBody } from "./build-responses-request-body.ts";
import { ChatStreamDecoder } from "./chat-stream-decoder.ts";
import { ResponsesStreamDecoder } from "./responses-stream-decoder.ts";
import { completeUsage } from "./estimate-usage.ts";
import type { MappedFinishReason } from "./map-finish-reason.ts";
import {
  mapHttpError,
  mapStreamError,
  mapTransportError,
  type UpstreamErrorContext,
} from "./map-http-error.ts";
import type { ResolvedOpenAICompatibleOptions } from "./openai-compatible-options.ts";
import { requestHeaders } from "./request-headers.ts";
import { SseParser } from "./sse-parser.ts";
import { UpstreamRequest, type UpstreamEvent } from "./upstream-request.ts";

export interface ChatStreamContext {
  dispatcher: Dispatcher;
  options: ResolvedOpenAICompatibleOptions;
  errorContext: UpstreamErrorContext;
  /** The configured model, or the server's first listed one (fetched once, then cached). */
  resolveModel(): Promise<string>;
  /** Lets the engine stop this stream on dispose; returns the unregister function. */
  track(stop: (error: SparkError) => void): () => void;
}

/** Error bodies are read for their message; past this size the rest is not needed. */
const errorBodyLimit = 64 * 1024;

export async function* runChatStream(
  context: ChatStreamContext,
  request: EngineRequest,
  signal: AbortSignal | undefined,
): AsyncGenerator<EngineEvent> {
  const clock = new StreamClock();
  // Per stream, so error messages can name the model once it is resolved.
  const errorContext: UpstreamErrorContext = { ...context.errorContext };
  const decoder =
    context.options.api === "responses"
      ? new ResponsesStreamDecoder(errorContext, request.sampling?.stop)
      : new ChatStreamDecoder(errorContext);
  const ending = function* (finish: MappedFinishReason): Generator<EngineEvent, void> {
    const usage = completeUsage(
      decoder.usage,
      Array.isArray(request.messages) ? request.messages : [],
      decoder,
    );
    yield* endStream(clock, usage, finish.reason, finish.error);
  };

  const invalid = refuseRequest(context.options, request);
  if (invalid !== undefined) {
    yield* ending({ reason: "error", error: invalid });
    return;
  }

  const { options } = context;
  // Registered before any I/O: an engine disposed from here on stops this stream at once.
  const stopped: { error?: SparkError; upstream?: UpstreamRequest } = {};
  const untrack = context.track((error) => {
    stopped.error = error;
    stopped.upstream?.abort(error);
  });
  const interrupted = (): MappedFinishReason | undefined => {
    if (signal?.aborted === true) return { reason: "cancelled" };
    return stopped.error === undefined ? undefined : { reason: "error", error: stopped.error };
  };
  let finish: MappedFinishReason | undefined = interrupted();
  let model = options.model;
  if (finish === undefined && model === undefined) {
    try {
      model = await context.resolveModel();
    } catch (error) {
      finish = { reason: "error", error: SparkError.from(error, "model_not_found") };
    }
    finish ??= interrupted();
  }
  if (finish !== undefined || model === undefined) {
    untrack();
    yield* ending(
      finish ?? { reason: "error", error: new SparkError("internal_error", "No model.") },
    );
    return;
  }
  errorContext.model = model;

  const upstream = new UpstreamRequest(context.dispatcher, {
    method: "POST",
    path: `${options.basePath}/${options.api === "responses" ? "responses" : "chat/completions"}`,
    headers: requestHeaders(options, "text/event-stream"),
    body: JSON.stringify(
      options.api === "responses"
        ? buildResponsesRequestBody(request, model)
        : buildChatRequestBody(request, { ...options, model }),
    ),
    headersTimeout: options.timeouts.firstByteMs,
    bodyTimeout: options.timeouts.idleMs,
  });
  stopped.upstream = upstream;
  const onAbort = (): void =>
    upstream.abort(new SparkError("cancelled", "The request was cancelled."));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    finish = yield* pump(
      upstream,
      decoder,
      clock,
      errorContext,
      interrupted,
      options.maxEventBytes,
    );
  } finally {
    signal?.removeEventListener("abort", onAbort);
    untrack();
    // Reached early when the reader stops iterating: free the upstream now, not at its timeout.
    if (!upstream.settled)
      upstream.abort(new SparkError("cancelled", "The reader stopped reading."));
  }
  yield* ending(finish);
}

async function* pump(
  upstream: UpstreamRequest,
  decoder: ChatStreamDecoder | ResponsesStreamDecoder,
  clock: StreamClock,
  errorContext: UpstreamErrorContext,
  interrupted: () => MappedFinishReason | undefined,
  maxEventBytes: number,
): AsyncGenerator<EngineEvent, MappedFinishReason> {
  // Characters, not bytes, but never more characters than bytes in UTF-8: the cap holds.
  const parser = new SseParser(maxEventBytes);
  let errorResponse:
    | { status: number; headers: Record<string, string | string[] | undefined>; body: string }
    | undefined;

  // Decodes SSE events into engine events; a decoding failure ends the stream with its error.
  function* emit(
    sseEvents: ReturnType<SseParser["push"]>,
  ): Generator<EngineEvent, MappedFinishReason | undefined> {
    for (const sseEvent of sseEvents) {
      let events: EngineEvent[];
      try {
        if (sseEvent.event === "error") {
          throw mapStreamError(parseErrorPayload(sseEvent.data), errorContext);
        }
        events = decoder.decode(sseEvent.data);
      } catch (error) {
        return { reason: "error", error: SparkError.from(error, "protocol_error") };
      }
      for (const event of events) {
        if (event.type === "text-delta" || event.type === "tool-call-delta") clock.markToken();
        else if (event.type === "tool-call-start") clock.markToken(0);
        yield event;
        const stop = interrupted();
        if (stop !== undefined) return stop;
      }
    }
    return undefined;
  }

  for await (const event of upstream as AsyncIterable<UpstreamEvent>) {
    const stop = interrupted();
    if (stop !== undefined) return stop;
    switch (event.type) {
      case "request-sent":
        clock.markWorkStarted();
        break;
      case "response-start": {
        if (event.status >= 300) {
          errorResponse = { status: event.status, headers: event.headers, body: "" };
          break;
        }
        const contentType = headerValue(event.headers["content-type"]) ?? "";
        if (!contentType.toLowerCase().startsWith("text/event-stream")) {
          return {
            reason: "error",
            error: new SparkError(
              "protocol_error",
              `${errorContext.baseUrl} answered with content type "${contentType || "none"}" instead of ` +
                `text/event-stream; is base_url an OpenAI-compatible API (ending in /v1)?`,
              { status: event.status },
            ),
          };
        }
        break;
      }
      case "data": {
        if (errorResponse !== undefined) {
          if (errorResponse.body.length < errorBodyLimit)
            errorResponse.body += event.chunk.toString("utf8");
          break;
        }
        let sseEvents: ReturnType<SseParser["push"]>;
        try {
          sseEvents = parser.push(event.chunk);
        } catch (error) {
          return { reason: "error", error: SparkError.from(error, "upstream_error") };
        }
        const result = yield* emit(sseEvents);
        if (result !== undefined) return result;
        break;
      }
      case "end": {
        if (errorResponse !== undefined)
          return { reason: "error", error: mapHttpError(errorResponse, errorContext) };
        const result = yield* emit(parser.end());
        if (result !== undefined) return result;
        let ended: ReturnType<ChatStreamDecoder["end"]>;
        try {
          ended = decoder.end();
        } catch (error) {
          return { reason: "error", error: SparkError.from(error, "protocol_error") };
        }
        for (const endEvent of ended.events) yield endEvent;
        return ended.finish;
      }
      case "error": {
        const stopped = interrupted();
        if (stopped !== undefined) return stopped;
        if (errorResponse !== undefined)
          return { reason: "error", error: mapHttpError(errorResponse, errorContext) };
        return { reason: "error", error: mapTransportError(event.error, errorContext) };
      }
      default:
        event satisfies never;
    }
  }
  return (
    interrupted() ?? {
      reason: "error",
      error: new SparkError("internal_error", "The upstream request ended without a result."),
    }
  );
}

/** Why a request cannot be sent upstream at all (either transport), or undefined. */
export function refuseRequest(
  options: ResolvedOpenAICompatibleOptions,
  request: EngineRequest,
): SparkError | undefined {
  return (
    refuseCompletion("openai-compatible", request) ??
    // vLLM and SGLang could (continue_final_message); others would start a new turn instead.
    refuseContinuation("openai-compatible", request) ??
    // The Responses API has no penalties; Chat Completions carries them on.
    (options.api === "responses"
      ? refusePenalties("openai-compatible (Responses API)", request)
      : undefined) ??
    validateEngineRequest(request) ??
    missingKeyError(options)
  );
}

function missingKeyError(options: ResolvedOpenAICompatibleOptions): SparkError | undefined {
  if (options.apiKey !== undefined || options.apiKeyEnv === undefined) return undefined;
  return new SparkError(
    "authentication_failed",
    `No API key for ${options.baseUrl}: set ${options.apiKeyEnv}, or point api_key_env in the model's config at the variable that holds it.`,
  );
}

function parseErrorPayload(data: string): { message?: string; code?: string | number } {
  try {
    const parsed: unknown = JSON.parse(data);
    if (typeof parsed === "object" && parsed !== null) {
      const record = parsed as { error?: unknown };
      return typeof record.error === "object" && record.error !== null ? record.error : parsed;
    }
  } catch {
    // Not JSON: the raw text is the message.
  }
  return { message: data };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
