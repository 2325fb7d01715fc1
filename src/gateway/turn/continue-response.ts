// Continues, on this replica, a response whose replica died mid-stream: its stored events rebuild
// the writer (output so far, next sequence number), the stored turn the engine request, and the
// engine produces only the rest (continuation-engine.ts). From here on it is this replica's
// response: logged under its lease, resumable here, stored here when it ends.
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { continuationEngine } from "./continuation-engine.ts";
import { GatewayClock } from "../gateway-clock.ts";
import type { GatewayContext } from "../gateway-context.ts";
import { resolveModelOrThrow } from "../gateway-models.ts";
import { LiveResponse, type EventSink } from "./live-response.ts";
import type { LiveResponseRegistry } from "./live-response-registry.ts";
import type { PreparedTurn } from "./prepare-turn.ts";
import { ResponseEventWriter } from "./response-event-writer.ts";
import type { ResponseRunResult } from "./response-runner.ts";
import type { ContinuableTurn, LiveSnapshot } from "../store/gateway-store.ts";
import { executeTurn } from "./turn-executor.ts";
import { describeWireError } from "../wire/wire-error.ts";
import {
  isContinuable,
  textSoFar,
  writerResumeState,
  type WriterResumeState,
} from "./writer-resume-state.ts";

export interface ContinueHost {
  context: GatewayContext;
  apiKey: string | undefined;
  registry: LiveResponseRegistry;
  /** The connection that asked to resume: it receives the rest. */
  sink: EventSink;
  /** What the response is counted under (a client's HTTP retry, or a WebSocket resume). */
  transport?: "ws" | "http";
}

/** What another replica needs of a prepared turn to continue it (written with its first events). */
export function continuableTurn(turn: PreparedTurn): ContinuableTurn {
  return {
    requestedModel: turn.model,
    engineRequest: turn.engineRequest,
    skeleton: turn.skeleton,
    clientTools: [...turn.clientTools],
    history: turn.history,
    sessionKey: turn.sessionKey,
    affinityKey: turn.affinityKey,
    body: turn.body,
  };
}

/** Takes over a response this replica claimed; `log` is its whole event log. Undefined when the
 * log already ends with the final event. */
export function continueResponse(
  host: ContinueHost,
  id: string,
  owner: string,
  log: LiveSnapshot,
): LiveResponse | undefined {
  const { context } = host;
  const events = log.events.map((json) => JSON.parse(json) as ResponseServerEvent);
  const state = writerResumeState(events);
  if (state.finished || context.liveLog === undefined) return undefined;
  const live = new LiveResponse(id, host.apiKey, log.turn.body, context.config.replayBufferBytes);
  // A later resume on this replica is served from its own replay buffer, earliest events included.
  events.forEach((event, index) => live.replay.append(event, log.events[index]));
  live.logTo(
    context.liveLog.open({
      id,
      owner,
      turn: log.turn,
      existing: true,
      deliver: (event, json) => live.deliver(event, json),
      onSuperseded: () => live.supersede(),
    }),
  );
  host.registry.add(live);
  live.attach(host.sink);
  void run(host, live, log.turn, state, owner).then((result) => live.finish(result));
  return live;
}

async function run(
  host: ContinueHost,
  live: LiveResponse,
  record: ContinuableTurn,
  state: WriterResumeState,
  owner: string,
): Promise<ResponseRunResult> {
  const { context } = host;
  const clock = new GatewayClock();
  try {
    if (!isContinuable(state)) {
      throw new SparkError(
        "internal_error",
        "The replica generating this response stopped while it was producing tool calls, which " +
          "are not continued elsewhere (only text is); send the request again.",
      );
    }
    const resolved = await resolveModelOrThrow(
      context.models,
      record.requestedModel,
      record.engineRequest,
    );
    const turn: PreparedTurn = {
      responseId: live.id,
      engine: continuationEngine(resolved.engine, textSoFar(state), (path) => {
        context.metrics.countContinuation(path.how);
        context.log.store(
          path.how === "engine"
            ? `${live.id} continued by the engine from the answer so far`
            : `${live.id} re-run whole, the text already sent skipped: ${path.reason}`,
        );
      }),
      model: resolved.model,
      engineRequest: { ...record.engineRequest, model: resolved.model },
      history: record.history,
      sessionKey: record.sessionKey,
      affinityKey: record.affinityKey,
      skeleton: record.skeleton,
      clientTools: new Map(record.clientTools),
      droppedTools: [],
      generate: true,
      body: record.body,
      apiKey: host.apiKey,
      tenant: owner,
      cacheReplica: undefined,
      receivedAt: performance.now(),
    };
    context.log.store(`${live.id} continued here: its replica's lease lapsed`);
    return await executeTurn(context, turn, {
      signal: live.signal,
      emit: (event, json) => live.emit(event, json),
      clock,
      transport: host.transport ?? "ws",
      resumeFrom: state,
      mayStore: () => !live.superseded,
    });
  } catch (thrown) {
    // The model is gone here, or the key is at its limit: the response ends, failed, in order.
    const error = SparkError.from(thrown);
    const wire = describeWireError(error);
    const writer = new ResponseEventWriter(
      record.skeleton,
      (event, json) => live.emit(event, json),
      new Map(record.clientTools),
      clock,
      state,
    );
    const response = writer.finish({
      status: "failed",
      error: { code: "server_error", message: wire.message, spark_code: error.code },
      usage: undefined,
      sparkTimings: null,
    });
    await context.store
      .putResponse({
        id: live.id,
        response,
        messages: record.history,
        sessionKey: record.sessionKey,
        affinityKey: record.affinityKey,
        ownerKey: owner,
        replica: context.store.replicaId,
      })
      .catch(() => undefined);
    return { response, reply: undefined, error, usage: undefined, timeToFirstTokenMs: null };
  }
}
