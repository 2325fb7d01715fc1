// A client's retry of a request whose response is already under way or done (the `openai` SDK
// retrying after a reset, Codex CLI after a stream cut): with a shared store the request's
// fingerprint finds that response, and the retry is answered from it instead of generating again:
// replayed from its log when it finished, relayed while its replica still generates it, taken over
// and continued here (resume-from-store.ts) when its replica died, exactly as `response.resume`.
import { tenantOf } from "../access/tenant.ts";
import type { GatewayContext } from "../gateway-context.ts";
import type { EventSink, LiveResponse } from "../turn/live-response.ts";
import { resumeFromStore } from "../turn/resume-from-store.ts";
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import { isContinuable, writerResumeState } from "../turn/writer-resume-state.ts";
import type { HttpResponseSink } from "./http-response-sink.ts";

export interface RetryHost {
  context: GatewayContext;
  apiKey: string | undefined;
  sink: HttpResponseSink;
  /** The client went away. */
  closed(): boolean;
  /** The response now streams to this request through `sink`: its client leaving orphans it. */
  adopt(live: LiveResponse, sink: EventSink): void;
}

/** Looks the request up, as soon as it is read (the lookup overlaps the slot's round trip). A
 * store that fails here costs a retry its shortcut, nothing else. */
export function findRetried(
  context: GatewayContext,
  apiKey: string | undefined,
  fingerprint: string,
): Promise<string | undefined> {
  return context.store.findRequest(fingerprint, tenantOf(apiKey)).catch(() => undefined);
}

/** Answers the request from the response it already started (`found`: findRetried's answer);
 * false when there is none, or the request is not a retry, so it is generated as usual. Resolves
 * once the response has ended. */
export async function serveRetry(
  host: RetryHost,
  found: Promise<string | undefined>,
): Promise<boolean> {
  const { context, apiKey, sink } = host;
  const owner = tenantOf(apiKey);
  const id = await found;
  if (id === undefined) return false;
  const local = context.liveResponses.get(id, apiKey);
  if (local !== undefined) return attachLocal(host, local);
  const snapshot = await context.store.readLive(id, owner, -1).catch(() => undefined);
  // Logged as this replica's yet not held here: nothing safe to attach to. Finished on a replica
  // that is alive: its client had the answer, so the same request again asks for a new one.
  if (snapshot === undefined || snapshot.replica === context.store.replicaId) return false;
  if (snapshot.done && snapshot.replicaAlive) return false;
  // Cut while it streamed a tool call: that is not continued (only text is), so rather than a
  // replay that ends failed, the retry is generated again, as it was before retries were served.
  if (!snapshot.done && !isContinuable(writerResumeState(parsed(snapshot.events)))) return false;
  const outcome = snapshot.done ? "replayed" : snapshot.replicaAlive ? "relayed" : "continued";
  context.log.store(`${id} answers a retried request (${outcome})`);
  let live: LiveResponse | undefined;
  try {
    live = await resumeFromStore(
      {
        context,
        apiKey,
        registry: context.liveResponses,
        sink: sink.emit,
        transport: "http",
        closed: () => host.closed(),
      },
      id,
      -1,
    );
  } catch (error) {
    // Gone between the reads (expired): generated as a new request, unless events went out.
    if (sink.lastSequenceNumber === -1) return false;
    throw error;
  }
  context.metrics.countRetry(live === undefined ? outcome : "continued");
  if (live !== undefined) {
    host.adopt(live, sink.emit);
    await live.finished;
  }
  return true;
}

/** This replica generates it (or just did). Served only when its own client left before the end:
 * an identical request while the first is still answered, or after it was, asks for a new answer. */
async function attachLocal(host: RetryHost, live: LiveResponse): Promise<boolean> {
  if (live.attached) return false;
  const events = live.replay.since(-1);
  if (events === undefined) return false;
  host.context.metrics.countRetry(live.done ? "replayed" : "attached");
  for (const event of events) host.sink.emit(event);
  if (live.done) return true;
  // Events already in the replay buffer may still be on their way to the log: sent once.
  const sink: EventSink = (event, json) => {
    if (event.sequence_number > host.sink.lastSequenceNumber) host.sink.emit(event, json);
  };
  live.attach(sink);
  host.adopt(live, sink);
  await live.finished;
  return true;
}

function parsed(events: readonly string[]): ResponseServerEvent[] {
  return events.map((json) => JSON.parse(json) as ResponseServerEvent);
}
