// One keep-alive undici Pool per upstream origin, shared by every engine that talks to it, so
// two models on the same provider reuse warm connections. Leases are counted; the last release
// closes the pool.
import { Pool } from "undici";

export interface HttpPoolOptions {
  connectMs: number;
  keepAliveMs: number;
}

export interface HttpPoolLease {
  readonly pool: Pool;
  /** Idempotent; the pool closes when its last lease is released. */
  release(): Promise<void>;
}

interface PoolEntry {
  pool: Pool;
  leases: number;
}

const pools = new Map<string, PoolEntry>();

export function acquireHttpPool(origin: string, options: HttpPoolOptions): HttpPoolLease {
  // Connect timeout and keep-alive are per pool in undici, so they are part of the key.
  const key = `${origin} connect=${options.connectMs} keepAlive=${options.keepAliveMs}`;
  let entry = pools.get(key);
  if (entry === undefined) {
    entry = {
      pool: new Pool(origin, {
        connectTimeout: options.connectMs,
        keepAliveTimeout: options.keepAliveMs,
        // A server's Keep-Alive hint may shorten the idle time, never stretch it past ours.
        keepAliveMaxTimeout: options.keepAliveMs,
        pipelining: 1,
      }),
      leases: 0,
    };
    pools.set(key, entry);
  }
  const leased = entry;
  leased.leases += 1;
  let released = false;
  return {
    pool: leased.pool,
    async release(): Promise<void> {
      if (released) return;
      released = true;
      leased.leases -= 1;
      if (leased.leases > 0) return;
      pools.delete(key);
      await leased.pool.close().catch(async () => leased.pool.destroy());
    },
  };
}

/** How many pools are open; for tests that check sharing and release. */
export function openHttpPoolCount(): number {
  return pools.size;
}
