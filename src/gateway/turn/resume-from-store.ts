// `response.resume` for a response this replica does not hold: its events come from the shared
// store. While the replica generating it is alive they are relayed as they are logged; once its
// lease has lapsed this replica claims the response and continues it (continue-response.ts).
import { setTimeout as sleep } from "node:timers/promises";
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import { continueResponse, type ContinueHost } from "./continue-response.ts";
import type { LiveResponse } from "./live-response.ts";
import { tenantOf } from "../access/tenant.ts";
import { WireError } from "../wire/wire-error.ts";

/** How often a relayed response's log is read while its replica is alive. */
const RELAY_POLL_MS = 50;

export interface StoreResumeHost extends ContinueHost {
  /** The connection went away: stop relaying. */
  closed(): boolean;
}

/**
 * Sends what the client missed, then relays or takes over. Resolves with the response when this
 * replica now generates it (the lane adopts it), undefined when the log ended here.
 */
export async function resumeFromStore(
  host: StoreResumeHost,
  responseId: string,
  lastSequenceNumber: number,
): Promise<LiveResponse | undefined> {
  const { store } = host.context;
  const owner = tenantOf(host.apiKey);
  let seen = lastSequenceNumber;
  for (;;) {
    if (host.closed()) return undefined;
    const snapshot = await store.readLive(responseId, owner, seen);
    if (snapshot === undefined) throw notResumableError(responseId);
    // The client saw events the store never got (it failed meanwhile): numbering on from the
    // store's end would repeat sequence numbers, so it is refused.
    if (seen >= snapshot.nextSequenceNumber) throw resumeGapError(responseId, seen);
    for (const json of snapshot.events) host.sink(JSON.parse(json) as ResponseServerEvent, json);
    seen = snapshot.nextSequenceNumber - 1;
    if (snapshot.done) return undefined;
    if (snapshot.replicaAlive && snapshot.replica !== store.replicaId) {
      await sleep(RELAY_POLL_MS);
      continue;
    }
    const claim = await store.claimLive(responseId, owner);
    if (claim === "missing") throw notResumableError(responseId);
    if (claim !== "claimed") continue;
    const whole = await store.readLive(responseId, owner, -1);
    if (whole === undefined) throw notResumableError(responseId);
    // Events logged between the read above and the claim have not been sent yet.
    for (const json of whole.events.slice(seen + 1))
      host.sink(JSON.parse(json) as ResponseServerEvent, json);
    return continueResponse(host, responseId, owner, whole);
  }
}

export function notResumableError(responseId: string): WireError {
  return new WireError(
    "invalid_request",
    `Response '${responseId}' cannot be resumed: it is unknown here, or finished more than resume_grace_seconds ago. ` +
      `Its final state is available with GET /v1/responses/${responseId} while it is stored.`,
    { wireCode: "response_not_resumable", param: "response_id", status: 404 },
  );
}

export function resumeGapError(responseId: string, lastSequenceNumber: number): WireError {
  return new WireError(
    "invalid_request",
    `Events after sequence_number ${lastSequenceNumber} of '${responseId}' are no longer held (replay_buffer_bytes); fetch the final response instead.`,
    { wireCode: "resume_gap", param: "last_sequence_number" },
  );
}
