// One engine stream over OpenAI's Responses WebSocket mode: the session's socket, a
// `response.create` that continues the chain the socket holds (`previous_response_id` and only
// the new items) or sends everything, `generate: false` for a warm-up, one recovery each for a
// lost chain (resend whole) and a socket closed before output (new socket), and cancellation.
import { cacheAffinityKey } from "../../cache-affinity-key.ts";
import type { EngineEvent, EngineRequest } from "../../engine.ts";
import { endStream } from "../../end-stream.ts";
import { StreamClock } from "../../stream-clock.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import { buildResponsesRequestBody } from "../build-responses-request-body.ts";
import { completeUsage } from "../estimate-usage.ts";
import type { MappedFinishReason } from "../map-finish-reason.ts";
import type { UpstreamErrorContext } from "../map-http-error.ts";
import type { ResolvedOpenAICompatibleOptions } from "../openai-compatible-options.ts";
import { ResponsesStreamDecoder } from "../responses-stream-decoder.ts";
import { refuseRequest } from "../run-chat-stream.ts";
import { cancelResponse } from "./cancel-response.ts";
import { readResponseFrames, type AttemptEnd, type AttemptState } from "./read-response-frames.ts";
import { chainAfter, planCreate, type InputItem } from "./response-chain.ts";
import type { ResponsesSocket } from "./responses-socket.ts";
import type { ResponsesSocketPool } from "./responses-socket-pool.ts";

export interface WebSocketStreamContext {
  pool: ResponsesSocketPool;
  options: ResolvedOpenAICompatibleOptions;
  errorContext: UpstreamErrorContext;
  resolveModel(): Promise<string>;
  track(stop: (error: SparkError) => void): () => void;
}

export async function* runWebSocketStream(
  context: WebSocketStreamContext,
  request: EngineRequest,
  signal: AbortSignal | undefined,
): AsyncGenerator<EngineEvent> {
  const clock = new StreamClock();
  const errorContext: UpstreamErrorContext = { ...context.errorContext };
  const decoder = new ResponsesStreamDecoder(errorContext, request.sampling?.stop);
  const ending = function* (finish: MappedFinishReason): Generator<EngineEvent, void> {
    const usage = completeUsage(decoder.usage, request.messages, decoder);
    yield* endStream(clock, usage, finish.reason, finish.error);
  };
  const invalid = refuseRequest(context.options, request);
  if (invalid !== undefined) {
    yield* ending({ reason: "error", error: invalid });
    return;
  }

  const { pool, options } = context;
  const stopped: { error?: SparkError; socket?: ResponsesSocket } = {};
  const untrack = context.track((error) => {
    stopped.error = error;
    if (stopped.socket !== undefined) pool.retire(stopped.socket, 1001, "engine disposed");
  });
  // The socket between `response.create` and the response's end: what an early exit must cancel.
  let running: { socket: ResponsesSocket; state: AttemptState } | undefined;
  let finish: MappedFinishReason | undefined;
  try {
    let model = options.model;
    if (model === undefined) {
      try {
        model = await context.resolveModel();
      } catch (error) {
        finish = { reason: "error", error: SparkError.from(error, "model_not_found") };
      }
    }
    if (model === undefined || finish !== undefined) {
      yield* ending(
        finish ?? { reason: "error", error: new SparkError("internal_error", "No model.") },
      );
      return;
    }
    errorContext.model = model;
    const body = createEventBody(request, model);
    const input = body.input as InputItem[];
    let sendWhole = false;
    let reconnected = false;
    for (;;) {
      if (signal?.aborted === true) {
        finish = { reason: "cancelled" };
        break;
      }
      const socket = pool.acquire(cacheAffinityKey(request));
      stopped.socket = socket;
      const ready = await untilReady(socket, signal);
      if (ready !== undefined) {
        pool.retire(socket);
        finish = ready;
        break;
      }
      const plan = sendWhole
        ? { previousResponseId: undefined, input }
        : planCreate(socket.chain, input, request.cacheScope);
      socket.send({
        type: "response.create",
        ...body,
        input: plan.input,
        ...(plan.previousResponseId === undefined
          ? {}
          : { previous_response_id: plan.previousResponseId }),
      });
      clock.markWorkStarted();
      const state: AttemptState = {
        responseId: undefined,
        output: { text: "", calls: [] },
        emitted: false,
        completed: false,
      };
      running = { socket, state };
      const end: AttemptEnd = yield* readResponseFrames(
        socket,
        decoder,
        clock,
        errorContext,
        {
          firstByteMs: options.timeouts.firstByteMs,
          idleMs: options.timeouts.idleMs,
          signal,
          continued: plan.previousResponseId !== undefined,
          stopped: () => stopped.error,
        },
        state,
      );
      running = undefined;
      if (end.kind === "finished") {
        if (state.completed && state.responseId !== undefined)
          socket.chain = chainAfter(
            state.responseId,
            input,
            state.output,
            request.cacheScope,
            request.prefillOnly === true,
          );
        pool.release(socket);
        finish = end.finish;
        break;
      }
      if (end.kind === "resend-full" && !sendWhole) {
        socket.chain = undefined;
        sendWhole = true;
        pool.release(socket);
        continue;
      }
      if (end.kind === "reconnect" && !reconnected && stopped.error === undefined) {
        reconnected = true;
        pool.retire(socket);
        continue;
      }
      if (end.kind === "aborted") {
        cancelResponse(pool, socket, state.responseId, options.webSocket.cancelDrainMs);
        finish = { reason: "cancelled" };
        break;
      }
      pool.retire(socket);
      finish =
        end.kind === "broken"
          ? end.finish
          : end.kind === "reconnect"
            ? { reason: "error", error: end.error }
            : { reason: "error", error: chainLostTwice(errorContext) };
      break;
    }
  } finally {
    untrack();
    // The reader stopped iterating mid-response: the upstream must stop generating too.
    if (running !== undefined)
      cancelResponse(
        pool,
        running.socket,
        running.state.responseId,
        options.webSocket.cancelDrainMs,
      );
  }
  if (stopped.error !== undefined) finish = { reason: "error", error: stopped.error };
  yield* ending(
    finish ?? { reason: "error", error: new SparkError("internal_error", "No result.") },
  );
}

/** The `response.create` fields of a request, less `input`'s split (decided per socket). */
function createEventBody(request: EngineRequest, model: string): Record<string, unknown> {
  const { stream: _stream, ...body } = buildResponsesRequestBody(request, model);
  if (request.prefillOnly === true) {
    // A warm-up: the upstream takes the conversation in and answers with an empty response whose
    // id the next turn continues from; OpenAI rejects caps below 16 tokens.
    delete body.max_output_tokens;
    body.generate = false;
  }
  return body;
}

/** Undefined once the socket is open; the way the request ends otherwise. */
async function untilReady(
  socket: ResponsesSocket,
  signal: AbortSignal | undefined,
): Promise<MappedFinishReason | undefined> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([socket.ready.then(() => "open" as const), aborted]);
    return outcome === "aborted" ? { reason: "cancelled" } : undefined;
  } catch (error) {
    return { reason: "error", error: SparkError.from(error, "network_error") };
  } finally {
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}

function chainLostTwice(errorContext: UpstreamErrorContext): SparkError {
  return new SparkError(
    "upstream_error",
    `${errorContext.baseUrl} lost the conversation twice (previous_response_not_found).`,
    { retryable: true },
  );
}
