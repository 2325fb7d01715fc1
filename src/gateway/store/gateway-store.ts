// The one seam for what must outlive a request: stored responses (previous_response_id,
// item_reference, GET /v1/responses/{id}), per-key concurrency slots, and, when replicas share it,
// the event logs of responses in flight with the lease of the replica generating each.
// Implementations: memory (one process, the default), Redis (replicas), and the primary's memory
// store over IPC (`spark serve --workers N`). Every method may reject with StoreUnavailableError.
import type { ChatMessage, EngineRequest } from "../../engines/engine.ts";
import type { ResponseObject, ResponseOutputItem } from "../../protocol/responses-events.ts";
import type { ResponseCreateBody } from "../../protocol/responses-requests.ts";

/** A finished response as the store keeps it. */
export interface StoredResponse {
  id: string;
  response: ResponseObject;
  /** The conversation after this response (its input and its output), without instructions. */
  messages: ChatMessage[];
  /** The client's cache key the chain carries (prompt_cache_key, tenant-scoped); none: it has none. */
  sessionKey?: string;
  /** A chain without a sessionKey: the key Spark's pools keep it together by (never sent upstream). */
  affinityKey?: string;
  /** The tenant that created it (tenant.ts: a hash of its API key); only it may read or chain. */
  ownerKey: string | undefined;
  /** The replica that generated it, so holds the chain's KV cache: a preference, never required. */
  replica?: string;
  /** The request's own input, as sent (GET /v1/responses/{id}/input_items). */
  input?: ResponseCreateBody["input"];
}

/** What a client named a tool, for an engine-side name (stored with a continuable turn, so a
 * continuing replica names the tools as the client did). */
export interface ClientTool {
  kind: "function" | "custom";
  name: string;
  namespace?: string;
}

/** What another replica needs to continue a response whose replica died. */
export interface ContinuableTurn {
  /** The model as the client named it, resolved again where it continues. */
  requestedModel: string | undefined;
  engineRequest: EngineRequest;
  /** The response object as response.created carried it. */
  skeleton: ResponseObject;
  clientTools: Array<[string, ClientTool]>;
  history: ChatMessage[];
  sessionKey?: string;
  affinityKey?: string;
  body: ResponseCreateBody;
}

/** One flush of a response's event log: the events of one batch, in sequence order. */
export interface LiveAppend {
  id: string;
  owner: string;
  /** Sent with the first batch only. */
  turn?: ContinuableTurn;
  /** The request's fingerprint (turn/request-fingerprint.ts), sent with the first batch: a retry
   * of the same request finds the response by it (findRequest) for as long as its log is kept. */
  request?: string;
  /** Wire JSON of each event; the log's index is the event's sequence_number. */
  events: string[];
  /** The batch ends with the response's final event. */
  done: boolean;
}

export type LiveAppendOutcome =
  /** Appended. */
  | "ok"
  /** Another replica took the response over (this one's lease had lapsed): stop generating. */
  | "superseded"
  /** The log is gone (the store restarted without it): keep generating, stop logging. */
  | "lost";

export interface LiveSnapshot {
  owner: string;
  /** The replica generating it (the last to claim it). */
  replica: string;
  replicaAlive: boolean;
  turn: ContinuableTurn;
  /** Wire JSON of the events after the sequence number asked for, in order. */
  events: string[];
  /** sequence_number of the first of `events`. */
  firstSequenceNumber: number;
  /** How many events the log holds: the sequence_number the next one gets. */
  nextSequenceNumber: number;
  done: boolean;
}

export type LiveClaimOutcome = "claimed" | "alive" | "done" | "missing";

export interface GatewayStore {
  readonly kind: "memory" | "redis" | "workers";
  /** Whether other processes share it; only then are event logs and leases kept. */
  readonly shared: boolean;
  /** This process's name in the store: leases, slots and affinity are recorded under it. */
  readonly replicaId: string;
  /** How long a replica that stopped renewing its lease counts as alive. */
  readonly leaseMs: number;
  /**
   * putResponse hands the response to the store before it returns (write-ahead, as appendLive
   * does): a read sent after it, through this replica or (once the store has read it) another,
   * finds it, and its promise only confirms. A turn then sends its final event without waiting
   * for the store's reply. Unset: the caller waits for the promise.
   */
  readonly writesAhead?: boolean;
  /** False while the store is known to be unreachable (its breaker is open); unset: assumed so. */
  readonly reachable?: boolean;

  getResponse(id: string, owner: string): Promise<StoredResponse | undefined>;
  /** Output items of held responses of `owner`, by item id (missing ones are left out). */
  findItems(itemIds: readonly string[], owner: string): Promise<Map<string, ResponseOutputItem>>;
  putResponse(stored: StoredResponse): Promise<void>;

  /** Takes one of `max` slots for `owner`: its id, or undefined when all are taken. */
  acquireSlot(owner: string, max: number): Promise<string | undefined>;
  releaseSlot(owner: string, slotId: string): Promise<void>;

  /** Appends the batches of several responses at once (one round trip), in order. Write-ahead:
   * an implementation hands the bytes to its connection before it returns, so events delivered to
   * clients after this call are in the store even if this process is killed at once. */
  appendLive(appends: readonly LiveAppend[]): Promise<LiveAppendOutcome[]>;
  /** The log after `afterSequenceNumber`, when the response is logged and belongs to `owner`. */
  readLive(
    id: string,
    owner: string,
    afterSequenceNumber: number,
  ): Promise<LiveSnapshot | undefined>;
  /** The response a request with this fingerprint started for `owner`, while its log is kept. */
  findRequest(fingerprint: string, owner: string): Promise<string | undefined>;
  /** Makes this replica the generator of a response whose replica's lease expired. */
  claimLive(id: string, owner: string): Promise<LiveClaimOutcome>;

  /** Renews this replica's lease and its slots; a replica whose lease lapses is taken for dead. */
  heartbeat(): Promise<void>;
  /** Ends the lease now (clean shutdown) and closes connections. */
  close(): Promise<void>;
}
