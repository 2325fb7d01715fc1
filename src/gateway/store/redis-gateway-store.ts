// The store several `spark serve` replicas share: Redis through ioredis. Commands fail at once
// while Redis is away (no offline queue), as a StoreUnavailableError (503); the client reconnects on
// its own, so a Redis restart costs the requests made during it and nothing else.
import { Redis, ReplyError } from "ioredis";
import type { ResponseOutputItem } from "../../protocol/responses-events.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { estimateStoredBytes, type ResponseStoreLimits } from "./response-store.ts";
import type {
  ContinuableTurn,
  GatewayStore,
  LiveAppend,
  LiveAppendOutcome,
  LiveClaimOutcome,
  LiveSnapshot,
  StoredResponse,
} from "./gateway-store.ts";
import { redisKeys, type RedisKeys } from "./redis-keys.ts";
import {
  ACQUIRE_SLOT,
  APPEND_LIVE,
  CLAIM_LIVE,
  FIND_ITEMS,
  GET_RESPONSE,
  HEARTBEAT,
  PUT_RESPONSE,
  READ_LIVE,
} from "./redis-store-scripts.ts";
import { describeRedisUrl } from "./describe-redis-url.ts";
import { StoreBreaker } from "./store-breaker.ts";
import { StoreFullError, StoreUnavailableError } from "./store-unavailable-error.ts";

export interface RedisStoreOptions {
  /** redis://[user:password@]host:port[/db] (or rediss:// for TLS). */
  url: string;
  replicaId: string;
  responses: ResponseStoreLimits;
  leaseMs: number;
  liveGraceMs: number;
  /** Key prefix, so several services can share one Redis. */
  namespace?: string;
  /** How long to wait for Redis at start. */
  connectTimeoutMs?: number;
  /** A command Redis does not answer within this long fails and opens the breaker (default 1000). */
  commandTimeoutMs?: number;
  /** Told about connection trouble (once per outage) and recovery. */
  onStatus?: (line: string) => void;
  /**
   * putResponse returns once the command is written to the connection (default true); false waits
   * for Redis's reply, the path before write-ahead (kept for bench/store-cost.ts's comparison).
   */
  writeAhead?: boolean;
}

/** A response logged without an end is dropped this long after its last append. */
const UNFINISHED_LIVE_MS = 3_600_000;
/** A command Redis does not answer within this long fails (a stopped or overloaded Redis), and the
 * breaker opens: calls after it fail at once until a probe is answered. One short wait, once. */
const COMMAND_TIMEOUT_MS = 1000;
/** How long ioredis's disconnect waits for the socket's close before destroying it. Its timer is
 * not unref'd and only a close still to come clears it: after a refused connection (closed
 * already) it held `spark serve`'s exit after "Cannot reach the store" for its default 2 s. */
const DISCONNECT_TIMEOUT_MS = 100;
/**
 * A stored response another replica wrote ahead can, in a rare race, be read before Redis has read
 * it (its bytes still in flight, or its script sent again after NOSCRIPT): a miss looks once more
 * after this long before it is a miss. Only misses pay it (an unknown or evicted id).
 */
const MISS_RECHECK_MS = 20;

type ScriptCall = (
  numberOfKeys: number,
  ...keysAndArguments: Array<string | number>
) => Promise<unknown>;

/** Connects and checks Redis answers; a clear error when it does not. */
export async function openRedisGatewayStore(
  options: RedisStoreOptions,
): Promise<RedisGatewayStore> {
  const where = describeRedisUrl(options.url);
  const client = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS,
    connectTimeout: options.connectTimeoutMs ?? 3000,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    // Reconnect for ever, backing off to once every 2 s: a restarted Redis is picked up again.
    retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
    connectionName: `spark-${options.replicaId}`,
  });
  let lastError: Error | undefined;
  client.on("error", (error: Error) => {
    lastError = error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    const cause = lastError ?? error;
    throw new SparkError(
      "store_unavailable",
      `Cannot reach the store at ${where} (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "Start Redis there, or leave out --store (and [serve] store) to keep state in this process.",
      { cause, status: 503 },
    );
  }
  return new RedisGatewayStore(client, options, where);
}

export class RedisGatewayStore implements GatewayStore {
  readonly kind = "redis";
  readonly shared = true;
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly writesAhead: boolean;
  private readonly keys: RedisKeys;
  /** Slots this replica holds (owner's slots key → slot ids), renewed by each heartbeat. */
  private readonly heldSlots = new Map<string, string>();
  private nextSlot = 0;
  private readonly breaker: StoreBreaker;
  /** Told of every call that failed (refused by the breaker included), by what needed it:
   * spark_gateway_store_failures_total. */
  onFailure: ((what: string) => void) | undefined;

  constructor(
    private readonly client: Redis,
    private readonly options: RedisStoreOptions,
    private readonly where: string,
  ) {
    this.replicaId = options.replicaId;
    this.leaseMs = options.leaseMs;
    this.writesAhead = options.writeAhead ?? true;
    this.keys = redisKeys(options.namespace ?? "spark");
    const scripts = {
      sparkPutResponse: PUT_RESPONSE,
      sparkGetResponse: GET_RESPONSE,
      sparkFindItems: FIND_ITEMS,
      sparkAcquireSlot: ACQUIRE_SLOT,
      sparkHeartbeat: HEARTBEAT,
      sparkAppendLive: APPEND_LIVE,
      sparkReadLive: READ_LIVE,
      sparkClaimLive: CLAIM_LIVE,
    };
    for (const [name, lua] of Object.entries(scripts)) client.defineCommand(name, { lua });
    this.breaker = new StoreBreaker({
      probe: () => client.ping(),
      isReply: (error) => error instanceof ReplyError,
      onChange: (open, reason) =>
        options.onStatus?.(
          open
            ? `store: ${where} is unavailable (${reason}); failing fast and probing until it answers`
            : `store: ${where} is reachable again`,
        ),
    });
    client.removeAllListeners("error");
    client.on("error", (error: Error) => this.breaker.open(error));
    client.on("close", () => this.breaker.open(new Error("connection closed")));
  }

  /** False while the breaker is open (Redis down or not answering). */
  get reachable(): boolean {
    return !this.breaker.isOpen;
  }

  /** Times the breaker opened, and calls it refused at once since the start (for /metrics). */
  get breakerCounts(): { opened: number; refused: number } {
    return { opened: this.breaker.opened, refused: this.breaker.refused };
  }

  async getResponse(id: string, owner: string): Promise<StoredResponse | undefined> {
    const read = (): Promise<unknown> =>
      this.call("previous_response_id", "sparkGetResponse", [this.keys.response(id)], 1);
    let json = await read();
    if (typeof json !== "string" && this.writesAhead) {
      await new Promise((resolve) => setTimeout(resolve, MISS_RECHECK_MS));
      json = await read();
    }
    if (typeof json !== "string") return undefined;
    const stored = JSON.parse(json) as StoredResponse;
    return stored.ownerKey === owner ? stored : undefined;
  }

  async findItems(
    itemIds: readonly string[],
    owner: string,
  ): Promise<Map<string, ResponseOutputItem>> {
    const found = new Map<string, ResponseOutputItem>();
    if (itemIds.length === 0) return found;
    const keys = itemIds.map((itemId) => this.keys.item(itemId));
    const responses = (await this.call(
      "item_reference",
      "sparkFindItems",
      [...keys, this.keys.responsePrefix],
      keys.length,
    )) as Array<string | null>;
    itemIds.forEach((itemId, index) => {
      const json = responses[index];
      if (typeof json !== "string") return;
      const stored = JSON.parse(json) as StoredResponse;
      if (stored.ownerKey !== owner) return;
      const item = stored.response.output.find((candidate) => candidate.id === itemId);
      if (item !== undefined) found.set(itemId, item);
    });
    return found;
  }

  /** Written to the connection before it returns (write-ahead: see GatewayStore.writesAhead). */
  async putResponse(stored: StoredResponse): Promise<void> {
    const itemKeys = stored.response.output.map((item) => this.keys.item(item.id));
    const limits = this.options.responses;
    // Caps per tenant: one key's responses never evict another's.
    const tenant = stored.ownerKey ?? "local";
    const kept = await this.call(
      "storing the response",
      "sparkPutResponse",
      [
        this.keys.response(stored.id),
        this.keys.lruIndex(tenant),
        this.keys.expiryIndex(tenant),
        this.keys.sizes(tenant),
        this.keys.itemsOf(stored.id),
        ...itemKeys,
        stored.id,
        JSON.stringify(stored),
        estimateStoredBytes(stored),
        limits.ttlMs,
        limits.maxEntries,
        limits.maxBytes,
        this.keys.responsePrefix,
        this.keys.itemsPrefix,
      ],
      5 + itemKeys.length,
    );
    if (kept === -1) throw new StoreFullError(this.where);
  }

  async acquireSlot(owner: string, max: number): Promise<string | undefined> {
    const slotId = `${this.replicaId}:${this.nextSlot++}`;
    const slotsKey = this.keys.slots(owner);
    const taken = await this.call(
      "the per-key concurrency limit",
      "sparkAcquireSlot",
      [slotsKey, slotId, max, this.leaseMs],
      1,
    );
    if (taken !== 1) return undefined;
    this.heldSlots.set(slotId, slotsKey);
    return slotId;
  }

  async releaseSlot(owner: string, slotId: string): Promise<void> {
    this.heldSlots.delete(slotId);
    await this.guard("releasing a concurrency slot", () =>
      this.client.zrem(this.keys.slots(owner), slotId),
    );
  }

  async appendLive(appends: readonly LiveAppend[]): Promise<LiveAppendOutcome[]> {
    if (appends.length === 0) return [];
    const keys: string[] = [];
    const values: Array<string | number> = [
      this.replicaId,
      UNFINISHED_LIVE_MS,
      Math.max(1000, this.options.liveGraceMs),
    ];
    for (const append of appends) {
      keys.push(this.keys.liveMeta(append.id), this.keys.liveEvents(append.id));
      values.push(
        append.owner,
        append.turn === undefined ? "" : JSON.stringify(append.turn),
        append.done ? 1 : 0,
        append.events.join("\n"),
        append.request === undefined ? "" : this.keys.request(append.owner, append.request),
        append.id,
      );
    }
    const outcomes = (await this.call(
      "logging a response in flight",
      "sparkAppendLive",
      [...keys, ...values],
      keys.length,
    )) as number[];
    return outcomes.map((outcome) =>
      outcome === 1 ? "ok" : outcome === 0 ? "superseded" : "lost",
    );
  }

  async readLive(id: string, owner: string, after: number): Promise<LiveSnapshot | undefined> {
    const first = Math.max(0, after + 1);
    const result = (await this.call(
      "resuming a response from another replica",
      "sparkReadLive",
      [this.keys.liveMeta(id), this.keys.liveEvents(id), first, this.keys.leasePrefix],
      2,
    )) as Array<string | number | null> | null;
    if (result === null) return undefined;
    const [replica, storedOwner, turn, done, alive, length, ...events] = result;
    if (storedOwner !== owner || typeof replica !== "string" || typeof turn !== "string")
      return undefined;
    return {
      owner,
      replica,
      replicaAlive: alive === 1,
      turn: JSON.parse(turn) as ContinuableTurn,
      events: events as string[],
      firstSequenceNumber: first,
      nextSequenceNumber: Number(length),
      done: done === "1",
    };
  }

  async findRequest(fingerprint: string, owner: string): Promise<string | undefined> {
    const id = await this.guard("finding a retried request", () =>
      this.client.get(this.keys.request(owner, fingerprint)),
    );
    return id ?? undefined;
  }

  async claimLive(id: string, owner: string): Promise<LiveClaimOutcome> {
    return (await this.call(
      "taking over a response",
      "sparkClaimLive",
      [this.keys.liveMeta(id), this.replicaId, owner, this.keys.leasePrefix],
      1,
    )) as LiveClaimOutcome;
  }

  async heartbeat(): Promise<void> {
    const slotKeys = [...this.heldSlots.values()];
    await this.call(
      "renewing this replica's lease",
      "sparkHeartbeat",
      [this.keys.lease(this.replicaId), ...slotKeys, this.leaseMs, ...this.heldSlots.keys()],
      1 + slotKeys.length,
    );
  }

  async close(): Promise<void> {
    this.breaker.stop();
    // Others take this replica for dead at once, rather than after the lease.
    if (this.reachable)
      await this.client.del(this.keys.lease(this.replicaId)).catch(() => undefined);
    this.client.removeAllListeners("close");
    this.client.disconnect();
  }

  private call(
    what: string,
    script: string,
    keysAndArguments: Array<string | number>,
    numberOfKeys: number,
  ): Promise<unknown> {
    const command = (this.client as unknown as Record<string, ScriptCall>)[script];
    if (command === undefined) throw new SparkError("internal_error", `No script ${script}.`);
    return this.guard(what, () => command.call(this.client, numberOfKeys, ...keysAndArguments));
  }

  /** Sends the command unless the breaker is open; either way a failure is a typed 503. */
  private async guard<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await this.breaker.run(
        send,
        () => new StoreUnavailableError(what, this.where, new Error("not answering; failing fast")),
      );
    } catch (error) {
      this.onFailure?.(what);
      if (error instanceof StoreUnavailableError || error instanceof StoreFullError) throw error;
      throw new StoreUnavailableError(what, this.where, error);
    }
  }
}
