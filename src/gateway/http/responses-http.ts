// POST /v1/responses: one turn over HTTP, streamed as server-sent events or answered as one JSON
// response. It shares the store with WebSocket mode, so previous_response_id works across both.
// With a shared store its events are logged as the WebSocket path's are: a retry of the same
// request on any replica is answered from that response (responses-retry.ts), a client that
// leaves does not stop it for the resume grace period, and a drain hands it over.
import type { IncomingMessage, ServerResponse } from "node:http";
import { isCommonResponseCreate } from "../../protocol/response-create-fast-check.ts";
import {
  responseCreateBodySchema,
  type ResponseCreateBody,
} from "../../protocol/responses-requests.ts";
import { GatewayClock } from "../gateway-clock.ts";
import type { GatewayContext } from "../gateway-context.ts";
import { drainingError } from "../drain-state.ts";
import { readJsonBody, sendError, sendJson } from "./http-io.ts";
import { httpResponseSink, type HttpResponseSink } from "./http-response-sink.ts";
import { continuableTurn } from "../turn/continue-response.ts";
import { LiveResponse, type EventSink } from "../turn/live-response.ts";
import { prepareTurn, type PreparedTurn } from "../turn/prepare-turn.ts";
import { requestFingerprint } from "../turn/request-fingerprint.ts";
import type { ResponseRunResult } from "../turn/response-runner.ts";
import { schemaError } from "../wire/schema-error.ts";
import { findRetried, serveRetry } from "./responses-retry.ts";
import { dropSlot, executeTurn, startSlot } from "../turn/turn-executor.ts";
import { handedOverEvent } from "./handed-over-event.ts";

export async function handleResponsesPost(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  apiKey: string | undefined,
): Promise<void> {
  const receivedAt = performance.now();
  const clock = new GatewayClock();
  const raw = await readJsonBody(request, context.config.maxFrameBytes, clock);
  const startedAt = performance.now();
  const body = isCommonResponseCreate(raw) ? (raw as ResponseCreateBody) : parseBody(raw);
  clock.addSince(startedAt);
  const fingerprint = context.liveLog === undefined ? undefined : requestFingerprint(body);
  const retried = fingerprint === undefined ? undefined : findRetried(context, apiKey, fingerprint);
  const slot = startSlot(context, apiKey);
  // Which replica served it (a retry's answer included), and below, which one holds the chain's
  // cache when that is another: a load balancer (or a client) may send the next turn there.
  if (context.store.shared) response.setHeader("x-spark-replica", context.store.replicaId);
  const controller = new AbortController();
  /** The logged response streaming to this request, and the sink it streams through. */
  let adopted: { live: LiveResponse; sink: EventSink } | undefined;
  const sink = httpResponseSink(context, response, body.stream === true, () => {
    context.metrics.countServerClose("slow_client");
    controller.abort("disconnected");
    adopted?.live.stop("disconnected");
  });
  // A client that hangs up frees the engine, unless its response is logged: then it generates on
  // for the resume grace period, for the client's retry. Listened for before the turn is
  // prepared, so one gone while the engine checks it (a grammar build) is not missed.
  response.on("close", () => {
    if (response.writableFinished) return;
    controller.abort("disconnected");
    if (adopted === undefined || adopted.live.done) return;
    adopted.live.detach(adopted.sink);
    context.liveResponses.orphaned(adopted.live);
  });
  const adopt = (live: LiveResponse, liveSink: EventSink): void => {
    adopted = { live, sink: liveSink };
  };
  if (retried !== undefined) {
    const host = { context, apiKey, sink, closed: () => controller.signal.aborted, adopt };
    let served: boolean;
    try {
      served = await serveRetry(host, retried);
    } catch (error) {
      dropSlot(slot);
      throw error;
    }
    if (served) {
      dropSlot(slot);
      return answer(context, response, sink, undefined);
    }
  }

  let turn: PreparedTurn;
  try {
    turn = await prepareTurn(
      { body, apiKey, receivedAt, clock, signal: controller.signal },
      {
        models: context.models,
        store: context.store,
        contextLimitTokens: context.config.contextLimitTokens,
      },
    );
  } catch (error) {
    dropSlot(slot);
    throw error;
  }

  if (
    context.store.shared &&
    turn.cacheReplica !== undefined &&
    turn.cacheReplica !== context.store.replicaId
  )
    response.setHeader("x-spark-cache-replica", turn.cacheReplica);
  // The concurrency check throws before the stream starts, so it can still be a 429.
  if (context.liveLog === undefined) {
    const result = await executeTurn(context, turn, {
      signal: controller.signal,
      emit: sink.emit,
      clock,
      transport: "http",
      slot,
    });
    return answer(context, response, sink, result);
  }

  const live = new LiveResponse(turn.responseId, apiKey, body, context.config.replayBufferBytes);
  live.logTo(
    context.liveLog.open({
      id: turn.responseId,
      owner: turn.tenant,
      turn: continuableTurn(turn),
      ...(fingerprint === undefined ? {} : { request: fingerprint }),
      deliver: (event, json) => live.deliver(event, json),
      onSuperseded: () => live.supersede(),
    }),
  );
  context.liveResponses.add(live);
  live.attach(sink.emit);
  adopt(live, sink.emit);
  if (controller.signal.aborted) {
    live.detach(sink.emit);
    context.liveResponses.orphaned(live);
  }
  let result: ResponseRunResult;
  try {
    result = await executeTurn(context, turn, {
      signal: live.signal,
      emit: (event, json) => live.emit(event, json),
      clock,
      transport: "http",
      mayStore: () => !live.superseded,
      slot,
    });
  } catch (error) {
    context.liveResponses.remove(live);
    live.finish(undefined);
    throw error;
  }
  live.finish(result);
  // A drain handed it over (another replica continues it for the client's retry): the client is
  // told so in a way its retry logic recognises, rather than by a stream that just stops.
  if (live.superseded && context.drain.draining) {
    if (!sink.streaming) return sendError(response, drainingError());
    sink.emit(handedOverEvent(turn.skeleton, sink.lastSequenceNumber + 1));
    return answer(context, response, sink, undefined);
  }
  return answer(context, response, sink, result);
}

/** Ends the stream, or sends the JSON answer: the run's result, else the final event's response. */
async function answer(
  context: GatewayContext,
  response: ServerResponse,
  sink: HttpResponseSink,
  result: ResponseRunResult | undefined,
): Promise<void> {
  // A logged response's last events wait for this loop turn's log write: delivered first.
  context.liveLog?.flushNow();
  if (sink.streaming) return sink.end();
  if (result?.error !== undefined) return sendError(response, result.error);
  const final = result?.response ?? sink.final;
  if (final === undefined) return sendError(response, drainingError());
  if (final.status === "failed") {
    return sendJson(response, 500, {
      error: {
        message: final.error?.message ?? "The response failed.",
        type: "server_error",
        param: null,
        code: final.error?.spark_code ?? "server_error",
      },
    });
  }
  sendJson(response, 200, final);
}

function parseBody(raw: unknown): ResponseCreateBody {
  const parsed = responseCreateBodySchema.safeParse(raw);
  if (!parsed.success) throw schemaError(parsed.error, "The request body");
  return parsed.data;
}
