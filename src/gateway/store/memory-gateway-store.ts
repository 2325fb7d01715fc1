// The default store: everything in this process's memory, nothing to install. Not shared, so the
// gateway keeps no event logs for it (a resume is served from the process's own replay buffers).
import type { ResponseOutputItem } from "../../protocol/responses-events.ts";
import type {
  GatewayStore,
  LiveAppend,
  LiveAppendOutcome,
  LiveClaimOutcome,
  LiveSnapshot,
  StoredResponse,
} from "./gateway-store.ts";
import { MemoryStoreCore, type MemoryStoreOptions } from "./memory-store-core.ts";

export class MemoryGatewayStore implements GatewayStore {
  readonly kind = "memory";
  readonly shared = false;
  readonly replicaId = "local";
  /** The only replica is this process: alive for as long as the store is open. */
  readonly leaseMs = Number.POSITIVE_INFINITY;
  private readonly core: MemoryStoreCore;

  constructor(options: Omit<MemoryStoreOptions, "leaseMs">) {
    this.core = new MemoryStoreCore({ ...options, leaseMs: this.leaseMs });
    this.core.heartbeat(this.replicaId);
  }

  getResponse(id: string, owner: string): Promise<StoredResponse | undefined> {
    return Promise.resolve(this.core.getResponse(id, owner));
  }

  findItems(itemIds: readonly string[], owner: string): Promise<Map<string, ResponseOutputItem>> {
    return Promise.resolve(this.core.findItems(itemIds, owner));
  }

  putResponse(stored: StoredResponse): Promise<void> {
    this.core.putResponse(stored);
    return Promise.resolve();
  }

  acquireSlot(owner: string, max: number): Promise<string | undefined> {
    return Promise.resolve(this.core.acquireSlot(this.replicaId, owner, max));
  }

  releaseSlot(owner: string, slotId: string): Promise<void> {
    this.core.releaseSlot(owner, slotId);
    return Promise.resolve();
  }

  appendLive(appends: readonly LiveAppend[]): Promise<LiveAppendOutcome[]> {
    return Promise.resolve(appends.map((append) => this.core.appendLive(this.replicaId, append)));
  }

  readLive(id: string, owner: string, after: number): Promise<LiveSnapshot | undefined> {
    return Promise.resolve(this.core.readLive(id, owner, after));
  }

  findRequest(fingerprint: string, owner: string): Promise<string | undefined> {
    return Promise.resolve(this.core.findRequest(fingerprint, owner));
  }

  claimLive(id: string, owner: string): Promise<LiveClaimOutcome> {
    return Promise.resolve(this.core.claimLive(this.replicaId, id, owner));
  }

  heartbeat(): Promise<void> {
    this.core.heartbeat(this.replicaId);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
