// Per-API-key cap on responses generating at once, across WebSocket and HTTP alike. With a shared
// store the slots are counted there, so the cap holds across replicas; while the store cannot be
// reached each process counts its own (the cap then holds per process) rather than refusing work.
import type { GatewayStore } from "../store/gateway-store.ts";
import { tenantOf } from "./tenant.ts";
import { WireError } from "../wire/wire-error.ts";

const ANONYMOUS = "\u0000anonymous";

/** Gives the slot back; resolves once the store has it free (never rejects). Idempotent. */
export type ReleaseSlot = () => Promise<void>;

export class ConcurrencyLimiter {
  private readonly active = new Map<string, number>();

  constructor(
    private readonly maxPerKey: number,
    /** Counts slots across replicas when it is shared. */
    private readonly store?: GatewayStore,
    /** Told when the store failed and the count fell back to this process's. */
    private readonly onStoreError: (error: unknown) => void = () => {},
  ) {}

  /** Takes a slot for `apiKey` or throws rate_limited. Await the release before telling the client
   * its response ended: it may send its next request, to any replica, the moment it knows. */
  async acquire(apiKey: string | undefined): Promise<ReleaseSlot> {
    const store = this.store;
    if (store?.shared !== true) return this.acquireLocal(apiKey);
    const owner = tenantOf(apiKey);
    let slotId: string | undefined;
    try {
      slotId = await store.acquireSlot(owner, this.maxPerKey);
    } catch (error) {
      this.onStoreError(error);
      return this.acquireLocal(apiKey);
    }
    if (slotId === undefined) throw this.refusal(`${this.maxPerKey}`);
    const heldSlot = slotId;
    let released: Promise<void> | undefined;
    return () => {
      // A slot the store never hears about again expires with this replica's lease.
      released ??= store.releaseSlot(owner, heldSlot).catch(this.onStoreError);
      return released;
    };
  }

  private acquireLocal(apiKey: string | undefined): ReleaseSlot {
    const key = apiKey ?? ANONYMOUS;
    const count = this.active.get(key) ?? 0;
    if (count >= this.maxPerKey) throw this.refusal(`${count}`);
    this.active.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return Promise.resolve();
      released = true;
      const remaining = (this.active.get(key) ?? 1) - 1;
      if (remaining <= 0) this.active.delete(key);
      else this.active.set(key, remaining);
      return Promise.resolve();
    };
  }

  private refusal(count: string): WireError {
    return new WireError(
      "rate_limited",
      `This API key already has ${count} responses generating (max_concurrency_per_key = ${this.maxPerKey}); wait for one to finish.`,
      { retryable: true, retryAfterMs: 1000 },
    );
  }
}
