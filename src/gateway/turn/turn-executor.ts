// One turn from prepared request to stored response: takes the API key's concurrency slot, runs
// the engine, stores the result for `previous_response_id`, and records metrics.
import type { GatewayClock } from "../gateway-clock.ts";
import { logEngineError } from "../wire/engine-error.ts";
import { describeOutputFormat } from "./output-format.ts";
import type { GatewayContext } from "../gateway-context.ts";
import type { PreparedTurn } from "./prepare-turn.ts";
import type { EmitEvent } from "./response-event-writer.ts";
import { runResponse, type ResponseRunResult } from "./response-runner.ts";
import { describeWireError } from "../wire/wire-error.ts";
import { isFinalResponseEvent } from "../wire/tick-corker.ts";
import type { WriterResumeState } from "./writer-resume-state.ts";
import type { ReleaseSlot } from "../access/concurrency-limiter.ts";

export interface TurnExecution {
  signal: AbortSignal;
  emit: EmitEvent;
  clock: GatewayClock;
  transport: "ws" | "http";
  /** Continues a response another replica started (its output so far, its numbering). */
  resumeFrom?: WriterResumeState;
  /** False once another replica has taken the response over: it stores the result, not this one. */
  mayStore?: () => boolean;
  /** The key's slot, asked for while the turn was prepared (startSlot); taken here otherwise. */
  slot?: Promise<ReleaseSlot>;
}

/** Asks for the key's concurrency slot at once, so a shared store's round trip overlaps the
 * turn's preparation (its own reads of the store) rather than following it. */
export function startSlot(
  context: GatewayContext,
  apiKey: string | undefined,
): Promise<ReleaseSlot> {
  const slot = context.limiter.acquire(apiKey);
  // Awaited by executeTurn; a turn that failed to prepare drops it (dropSlot).
  slot.catch(() => {});
  return slot;
}

/** Gives back a slot asked for by a turn that will not run. */
export function dropSlot(slot: Promise<ReleaseSlot>): void {
  slot.then(
    (release) => void release(),
    () => {},
  );
}

/** Throws (before any event) when the key is over its concurrency limit; otherwise never throws. */
export async function executeTurn(
  context: GatewayContext,
  turn: PreparedTurn,
  execution: TurnExecution,
): Promise<ResponseRunResult> {
  const release = await (execution.slot ?? context.limiter.acquire(turn.apiKey));
  // Any replica serves a chain; how often it is not the one holding its cache is worth seeing.
  if (context.store.shared && turn.cacheReplica !== undefined)
    context.metrics.countChainAffinity(turn.cacheReplica === context.store.replicaId);
  if (turn.droppedTools.length > 0) context.log.droppedTools(turn.droppedTools);
  const startedAt = performance.now();
  context.metrics.streamStarted();
  // With a shared store the final event waits until the response is stored: a client that chains
  // from it at once, on any replica, must find it.
  let heldFinal: Parameters<EmitEvent> | undefined;
  const emit: EmitEvent = context.store.shared
    ? (event, json) => {
        if (isFinalResponseEvent(event.type)) heldFinal = [event, json];
        else execution.emit(event, json);
      }
    : execution.emit;
  // HTTP has no resume: a drain that outlasts its grace period ends these with a retryable failure.
  const signal =
    execution.transport === "http"
      ? AbortSignal.any([execution.signal, context.drain.httpSignal])
      : execution.signal;
  const run = runResponse({
    turn,
    signal,
    emit,
    clock: execution.clock,
    ...(execution.resumeFrom === undefined ? {} : { resumeFrom: execution.resumeFrom }),
  });
  context.runs.add(run);
  try {
    const result = await run;
    // The engine is done: the slot goes back now, and the final event waits until the store has
    // it free (beside the write below, so it costs no extra round trip). A client may send its
    // next request, to any replica, the moment it reads that event.
    const released = release();
    // Stored whatever the outcome: a cancelled or steered response is what the next one chains from.
    // The final event waits for the store's reply, so a response is `completed` only once it is
    // stored; one the store refused says so (`store: false`) rather than promising a chain that
    // would 404. A store that is down costs nothing here: its breaker fails at once.
    if (execution.mayStore?.() !== false) {
      try {
        await context.store.putResponse({
          id: turn.responseId,
          response: result.response,
          messages: result.reply === undefined ? turn.history : [...turn.history, result.reply],
          sessionKey: turn.sessionKey,
          affinityKey: turn.affinityKey,
          ownerKey: turn.tenant,
          replica: context.store.replicaId,
          input: turn.body.input,
        });
      } catch (error) {
        result.response.store = false;
        context.metrics.countNotStored(describeWireError(error).code);
        // The first of an outage is logged with its response id; the rest are counted.
        const described = describeWireError(error);
        context.log.store(
          `${turn.responseId} not stored: ${described.message}`,
          `not_stored:${described.code}`,
        );
        // The final event carries the response: written again with `store: false`.
        if (heldFinal !== undefined) heldFinal = [heldFinal[0], undefined];
      }
    }
    await released;
    if (heldFinal !== undefined) execution.emit(...heldFinal);
    context.metrics.observeResponse({
      transport: execution.transport,
      status: result.response.status,
      timeToFirstTokenMs: result.timeToFirstTokenMs,
      gatewayOverheadMs: execution.clock.overheadMs,
      inputTokens: result.usage?.inputTokens ?? 0,
      cachedInputTokens: result.usage?.cachedInputTokens ?? 0,
      outputTokens: result.usage?.outputTokens ?? 0,
      decodeLoop: result.response.spark_timings?.decode_loop,
    });
    if (result.error !== undefined) {
      context.metrics.countError(result.error.code);
      logEngineError(context, result.error);
    }
    context.log.response({
      responseId: turn.responseId,
      model: turn.model,
      transport: execution.transport,
      status: result.response.status,
      inputTokens: result.usage?.inputTokens ?? 0,
      cachedInputTokens: result.usage?.cachedInputTokens ?? 0,
      outputTokens: result.usage?.outputTokens ?? 0,
      timeToFirstTokenMs: result.timeToFirstTokenMs,
      totalMs: performance.now() - startedAt,
      reason: result.error?.message ?? result.response.incomplete_details?.reason,
      format: describeOutputFormat(turn.engineRequest.outputFormat),
      tenant: turn.tenant,
    });
    return result;
  } finally {
    context.runs.delete(run);
    context.metrics.streamEnded();
    // Only when the run itself failed: otherwise released above (a second call does nothing).
    void release();
  }
}
