// POST /v1/responses: one turn over HTTP, streamed as server-sent events or answered as one JSON
// response. It shares the store with WebSocket mode, so previous_response_id works across both.
import type { IncomingMessage, ServerResponse } from "node:http";
import { isCommonResponseCreate } from "../../protocol/response-create-fast-check.ts";
import {
  responseCreateBodySchema,
  type ResponseCreateBody,
} from "../../protocol/responses-requests.ts";
import { DeltaCoalescer } from "../wire/delta-coalescer.ts";
import { GatewayClock } from "../gateway-clock.ts";
import type { GatewayContext } from "../gateway-context.ts";
import { readJsonBody, sendError, sendJson } from "./http-io.ts";
import { prepareTurn, type PreparedTurn } from "../turn/prepare-turn.ts";
import { schemaError } from "../wire/schema-error.ts";
import { responsesSseTransport, startEventStream } from "./sse-transport.ts";
import { dropSlot, executeTurn, startSlot } from "../turn/turn-executor.ts";

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
  const slot = startSlot(context, apiKey);
  const controller = new AbortController();
  // A client that hangs up frees the engine: HTTP has no resume. Listened for before the turn is
  // prepared, so one gone while the engine checks it (a grammar build) is not missed.
  response.on("close", () => {
    if (!response.writableFinished) controller.abort("disconnected");
  });
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

  // Which replica served it, and which one holds the chain's cache when that is another: a load
  // balancer (or a client) may send the next turn there; nothing requires it.
  if (context.store.shared) {
    response.setHeader("x-spark-replica", context.store.replicaId);
    if (turn.cacheReplica !== undefined && turn.cacheReplica !== context.store.replicaId)
      response.setHeader("x-spark-cache-replica", turn.cacheReplica);
  }
  if (body.stream !== true) {
    const result = await executeTurn(context, turn, {
      signal: controller.signal,
      emit: () => {},
      clock,
      transport: "http",
      slot,
    });
    if (result.error !== undefined) sendError(response, result.error);
    else sendJson(response, 200, result.response);
    return;
  }

  const coalescer = new DeltaCoalescer(
    responsesSseTransport(response, () => {
      context.metrics.countServerClose("slow_client");
      controller.abort("disconnected");
    }),
    {
      softBytes: context.config.sendBufferSoftBytes,
      hardBytes: context.config.sendBufferHardBytes,
    },
  );
  // The concurrency check throws before the stream starts, so it can still be a 429.
  let started = false;
  await executeTurn(context, turn, {
    signal: controller.signal,
    emit: (event, json) => {
      if (!started) {
        startEventStream(response);
        started = true;
      }
      coalescer.push(event, json);
    },
    clock,
    transport: "http",
    slot,
  });
  await coalescer.drained();
  response.end();
}

function parseBody(raw: unknown): ResponseCreateBody {
  const parsed = responseCreateBodySchema.safeParse(raw);
  if (!parsed.success) throw schemaError(parsed.error, "The request body");
  return parsed.data;
}
