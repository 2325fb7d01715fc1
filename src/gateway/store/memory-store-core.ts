// The in-memory store's state and rules, for any number of replicas named per call: one process
// uses it through MemoryGatewayStore; `spark serve --workers N` runs one in the primary and the
// workers reach it over IPC (workers-store-host.ts). Stored responses are capped per tenant, as in
// Redis: one key's responses never evict another's.
import type { ResponseOutputItem } from "../../protocol/responses-events.ts";
import { ResponseStore, type ResponseStoreLimits } from "./response-store.ts";
import type {
  LiveAppend,
  LiveAppendOutcome,
  LiveClaimOutcome,
  LiveSnapshot,
  StoredResponse,
} from "./gateway-store.ts";

export interface MemoryStoreOptions {
  responses: ResponseStoreLimits;
  /** A replica that has not renewed its lease for this long is taken for dead. */
  leaseMs: number;
  /** How long a finished response's event log stays readable (resume_grace_seconds). */
  liveGraceMs: number;
  now?: () => number;
}

interface LiveEntry {
  owner: string;
  replica: string;
  turn: NonNullable<LiveAppend["turn"]>;
  events: string[];
  done: boolean;
  /** Set once done: the log is dropped after this. */
  expiresAt: number;
}

/** A response logged without an end is dropped this long after its last append. */
const UNFINISHED_LIVE_MS = 3_600_000;

/** The tenant of a response stored without an owner (no API keys configured). */
const NO_OWNER = "local";

export class MemoryStoreCore {
  /** Each tenant's responses, under the configured caps each. */
  private readonly responses = new Map<string, ResponseStore>();
  private readonly leases = new Map<string, number>();
  /** owner → slot id → the replica holding it. */
  private readonly slots = new Map<string, Map<string, string>>();
  private readonly live = new Map<string, LiveEntry>();
  /** owner + request fingerprint → the response it started; kept while that response's log is. */
  private readonly requests = new Map<string, string>();
  private nextSlot = 0;
  private lastSweepAt = 0;
  private readonly now: () => number;

  constructor(private readonly options: MemoryStoreOptions) {
    this.now = options.now ?? Date.now;
  }

  getResponse(id: string, owner: string): StoredResponse | undefined {
    return this.responses.get(owner)?.get(id, owner);
  }

  findItems(itemIds: readonly string[], owner: string): Map<string, ResponseOutputItem> {
    const found = new Map<string, ResponseOutputItem>();
    for (const itemId of itemIds) {
      const item = this.responses.get(owner)?.findItem(itemId, owner);
      if (item !== undefined) found.set(itemId, item);
    }
    return found;
  }

  putResponse(stored: StoredResponse): void {
    const tenant = stored.ownerKey ?? NO_OWNER;
    let responses = this.responses.get(tenant);
    if (responses === undefined) {
      responses = new ResponseStore(this.options.responses, this.now);
      this.responses.set(tenant, responses);
    }
    responses.put(stored);
  }

  acquireSlot(replica: string, owner: string, max: number): string | undefined {
    let held = this.slots.get(owner);
    if (held === undefined) {
      held = new Map();
      this.slots.set(owner, held);
    }
    // Slots of a replica that died are free again: it will never release them.
    for (const [slotId, holder] of held) if (!this.isAlive(holder)) held.delete(slotId);
    if (held.size >= max) return undefined;
    const slotId = `${replica}:${this.nextSlot++}`;
    held.set(slotId, replica);
    return slotId;
  }

  releaseSlot(owner: string, slotId: string): void {
    const held = this.slots.get(owner);
    held?.delete(slotId);
    if (held?.size === 0) this.slots.delete(owner);
  }

  appendLive(replica: string, append: LiveAppend): LiveAppendOutcome {
    this.sweep();
    let entry = this.live.get(append.id);
    if (append.turn !== undefined && entry === undefined) {
      entry = {
        owner: append.owner,
        replica,
        turn: append.turn,
        events: [],
        done: false,
        expiresAt: this.now() + UNFINISHED_LIVE_MS,
      };
      this.live.set(append.id, entry);
      if (append.request !== undefined)
        this.requests.set(requestKey(append.owner, append.request), append.id);
    }
    if (entry === undefined) return "lost";
    if (entry.replica !== replica) return "superseded";
    for (const event of append.events) entry.events.push(event);
    entry.done = append.done;
    entry.expiresAt = this.now() + (append.done ? this.options.liveGraceMs : UNFINISHED_LIVE_MS);
    return "ok";
  }

  readLive(id: string, owner: string, afterSequenceNumber: number): LiveSnapshot | undefined {
    this.sweep();
    const entry = this.live.get(id);
    if (entry === undefined || entry.owner !== owner || entry.expiresAt <= this.now())
      return undefined;
    const first = Math.max(0, afterSequenceNumber + 1);
    return {
      owner: entry.owner,
      replica: entry.replica,
      replicaAlive: this.isAlive(entry.replica),
      turn: entry.turn,
      events: entry.events.slice(first),
      firstSequenceNumber: first,
      nextSequenceNumber: entry.events.length,
      done: entry.done,
    };
  }

  findRequest(fingerprint: string, owner: string): string | undefined {
    this.sweep();
    const key = requestKey(owner, fingerprint);
    const id = this.requests.get(key);
    const entry = id === undefined ? undefined : this.live.get(id);
    if (entry === undefined || entry.owner !== owner || entry.expiresAt <= this.now()) {
      this.requests.delete(key);
      return undefined;
    }
    return id;
  }

  claimLive(replica: string, id: string, owner: string): LiveClaimOutcome {
    const entry = this.live.get(id);
    if (entry === undefined || entry.owner !== owner) return "missing";
    if (entry.done) return "done";
    if (entry.replica !== replica && this.isAlive(entry.replica)) return "alive";
    entry.replica = replica;
    return "claimed";
  }

  heartbeat(replica: string): void {
    this.leases.set(replica, this.now() + this.options.leaseMs);
  }

  /** The replica is gone for sure (its process exited): its lease ends now. */
  endLease(replica: string): void {
    this.leases.delete(replica);
  }

  isAlive(replica: string): boolean {
    return (this.leases.get(replica) ?? 0) > this.now();
  }

  /** Drops expired logs, at most once a second (appends come per tick). */
  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweepAt < 1000) return;
    this.lastSweepAt = now;
    for (const [id, entry] of this.live) if (entry.expiresAt <= now) this.live.delete(id);
    for (const [key, id] of this.requests) if (!this.live.has(id)) this.requests.delete(key);
  }
}

function requestKey(owner: string, fingerprint: string): string {
  return `${owner}\n${fingerprint}`;
}
