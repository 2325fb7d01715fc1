// One replica's view of a memory store that several replicas share in one machine: the primary of
// `spark serve --workers N` keeps one MemoryStoreCore and serves each worker through a view like
// this (over IPC); tests use two views to run the shared-store contract without Redis.
import type { ResponseOutputItem } from "../../protocol/responses-events.ts";
import type {
  GatewayStore,
  LiveAppend,
  LiveAppendOutcome,
  LiveClaimOutcome,
  LiveSnapshot,
  StoredResponse,
} from "./gateway-store.ts";
import type { MemoryStoreCore } from "./memory-store-core.ts";

export class MemoryReplicaStore implements GatewayStore {
  readonly kind = "workers";
  readonly shared = true;

  constructor(
    private readonly core: MemoryStoreCore,
    readonly replicaId: string,
    readonly leaseMs: number,
  ) {}

  async getResponse(id: string, owner: string): Promise<StoredResponse | undefined> {
    return this.core.getResponse(id, owner);
  }

  async findItems(
    itemIds: readonly string[],
    owner: string,
  ): Promise<Map<string, ResponseOutputItem>> {
    return this.core.findItems(itemIds, owner);
  }

  async putResponse(stored: StoredResponse): Promise<void> {
    this.core.putResponse(stored);
  }

  async acquireSlot(owner: string, max: number): Promise<string | undefined> {
    return this.core.acquireSlot(this.replicaId, owner, max);
  }

  async releaseSlot(owner: string, slotId: string): Promise<void> {
    this.core.releaseSlot(owner, slotId);
  }

  async appendLive(appends: readonly LiveAppend[]): Promise<LiveAppendOutcome[]> {
    return appends.map((append) => this.core.appendLive(this.replicaId, append));
  }

  async readLive(id: string, owner: string, after: number): Promise<LiveSnapshot | undefined> {
    return this.core.readLive(id, owner, after);
  }

  async findRequest(fingerprint: string, owner: string): Promise<string | undefined> {
    return this.core.findRequest(fingerprint, owner);
  }

  async claimLive(id: string, owner: string): Promise<LiveClaimOutcome> {
    return this.core.claimLive(this.replicaId, id, owner);
  }

  async heartbeat(): Promise<void> {
    this.core.heartbeat(this.replicaId);
  }

  async close(): Promise<void> {
    this.core.endLease(this.replicaId);
  }
}
