// Opens the store [serve] names: this process's memory when none is set, Redis for `redis://…`.
// A Redis that cannot be reached is an error here, at start, rather than on the first request.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { ServeConfig } from "../serve-config.ts";
import type { GatewayStore } from "./gateway-store.ts";
import { MemoryGatewayStore } from "./memory-gateway-store.ts";
import { describeRedisUrl } from "./describe-redis-url.ts";
import { WorkersGatewayStore, type WorkerChannel } from "./workers-store.ts";

export interface OpenStoreOptions {
  config: ServeConfig;
  /** This replica's name in the store (default: host, pid and a random suffix). */
  replicaId?: string;
  /** Told when the store goes away and comes back. */
  onStatus?: (line: string) => void;
  /** A `spark serve --workers` worker's line to its primary, which holds the store without Redis. */
  workerChannel?: WorkerChannel;
  /** Redis only: false waits for each stored response's reply (bench/store-cost.ts's baseline). */
  redisWriteAhead?: boolean;
}

export async function openGatewayStore(options: OpenStoreOptions): Promise<GatewayStore> {
  const { config } = options;
  const responses = {
    maxEntries: config.responseStoreMaxEntries,
    maxBytes: config.responseStoreMaxBytes,
    ttlMs: config.responseStoreTtlSeconds * 1000,
  };
  const liveGraceMs = config.resumeGraceSeconds * 1000;
  if (config.store === undefined && options.workerChannel !== undefined) {
    const replicaId = options.replicaId ?? newReplicaId();
    return new WorkersGatewayStore(options.workerChannel, replicaId, config.replicaLeaseMs);
  }
  if (config.store === undefined) return new MemoryGatewayStore({ responses, liveGraceMs });
  // Only now: ioredis is for a server that shares its store, not for every `spark serve`.
  const { openRedisGatewayStore } = await import("./redis-gateway-store.ts");
  return openRedisGatewayStore({
    url: config.store,
    replicaId: options.replicaId ?? newReplicaId(),
    responses,
    leaseMs: config.replicaLeaseMs,
    liveGraceMs,
    ...(options.onStatus === undefined ? {} : { onStatus: options.onStatus }),
    ...(options.redisWriteAhead === undefined ? {} : { writeAhead: options.redisWriteAhead }),
  });
}

/** A name no other process shares: a restarted replica is a new one (its old lease must lapse). */
export function newReplicaId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

/** One line for the startup banner. */
export function describeStore(store: GatewayStore, config: ServeConfig): string {
  if (store.kind === "memory") return "this process's memory (set --store redis://… to share it)";
  const where =
    config.store === undefined ? "the primary's memory" : describeRedisUrl(config.store);
  return `${where} (replica ${store.replicaId}, lease ${store.leaseMs} ms)`;
}
