// One model served by several replicas (e.g. two vLLM servers): the turns of one conversation (its
// prompt_cache_key, else its start: replica-affinity-key.ts) go to the same replica so its prefix
// cache hits, chosen by rendezvous hashing over the healthy replicas; a replica that fails before any output is marked by
// its breaker (passive health checking) and the request moves to the next replica in that
// session's order, so only the dead replica's sessions move and they come back when it recovers.
// With active health checks a replica that fails its probe is put last in every order before a
// user request finds it dead, and back in place once a probe passes.
import { createHash } from "node:crypto";
import type {
  Engine,
  EngineEvent,
  EngineRequest,
  EngineStreamOptions,
  ModelInfo,
} from "../engines/engine.ts";
import { refusedStream } from "../engines/end-stream.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { CircuitBreaker, type BreakerSettings, type BreakerState } from "./circuit-breaker.ts";
import {
  ReplicaHealthCheck,
  type HealthCheckSettings,
  type ReplicaProbe,
} from "./replica-health-check.ts";
import { replicaAffinityKey } from "./replica-affinity-key.ts";

export interface PoolReplica {
  /** What it is called in errors and metrics: its base URL. */
  name: string;
  engine: Engine;
  /** How active health checks ask whether it is up; none: passive checking only. */
  probe?: ReplicaProbe;
}

export interface PoolOptions {
  /** A replica is out after this many failures in the window, and probed again after `openMs`. */
  health?: BreakerSettings;
  /** Probes each replica with a `probe`; off when absent or its interval is 0. */
  healthCheck?: HealthCheckSettings;
  now?: () => number;
  onReplicaState?: (replica: string, state: string) => void;
}

const DEFAULT_HEALTH: BreakerSettings = { failures: 1, windowMs: 10_000, openMs: 5_000 };

interface PooledReplica extends PoolReplica {
  health: CircuitBreaker;
  check: ReplicaHealthCheck | undefined;
  served: number;
}

/** One replica's state for /metrics. */
export interface ReplicaState {
  name: string;
  /** False while its health probe fails. */
  up: boolean;
  breaker: BreakerState;
  served: number;
  probesPassed: number;
  probesFailed: number;
}

export class UpstreamPool implements Engine {
  readonly kind: string;
  private readonly replicas: PooledReplica[];
  private nextUnkeyed = 0;

  constructor(replicas: readonly PoolReplica[], options: PoolOptions = {}) {
    if (replicas.length === 0)
      throw new SparkError("invalid_config", "A pool needs at least one replica.");
    this.kind = replicas[0]?.engine.kind ?? "pool";
    const checks =
      options.healthCheck !== undefined && options.healthCheck.intervalMs > 0
        ? options.healthCheck
        : undefined;
    this.replicas = replicas.map((replica) => {
      const health = new CircuitBreaker(options.health ?? DEFAULT_HEALTH, options.now, (state) =>
        options.onReplicaState?.(replica.name, state),
      );
      const check =
        checks !== undefined && replica.probe !== undefined
          ? new ReplicaHealthCheck(replica.probe, checks, (up) => {
              // Back after failed probes: its breaker's verdict is stale, so it gets requests again.
              if (up) health.success();
              options.onReplicaState?.(replica.name, up ? "up" : "down");
            })
          : undefined;
      return { ...replica, served: 0, health, check };
    });
    for (const replica of this.replicas) replica.check?.start();
  }

  replicaStates(): ReplicaState[] {
    return this.replicas.map((replica) => ({
      name: replica.name,
      up: replica.check?.up ?? true,
      breaker: replica.health.state,
      served: replica.served,
      probesPassed: replica.check?.passed ?? 0,
      probesFailed: replica.check?.failed ?? 0,
    }));
  }

  /** Requests each replica served (finished without an error), for tests and diagnostics. */
  servedCounts(): Record<string, number> {
    return Object.fromEntries(this.replicas.map((replica) => [replica.name, replica.served]));
  }

  /** Replicas serve one model the same way: the first answers for all. */
  async checkRequest(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): Promise<SparkError | undefined> {
    return this.replicas[0]?.engine.checkRequest?.(request, options);
  }

  async *stream(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): AsyncIterable<EngineEvent> {
    let lastError: SparkError | undefined;
    for (const replica of this.order(replicaAffinityKey(request))) {
      if (!replica.health.tryAcquire()) continue;
      let outputSent = false;
      const held: EngineEvent[] = [];
      let finish: Extract<EngineEvent, { type: "finish" }> | undefined;
      for await (const event of replica.engine.stream(request, options)) {
        if (event.type === "finish") finish = event;
        else if (event.type === "usage" || event.type === "timings") held.push(event);
        else {
          outputSent = true;
          yield event;
        }
      }
      const error = finish?.error;
      const failedBeforeOutput =
        finish?.reason === "error" && !outputSent && error?.retryable === true;
      if (!failedBeforeOutput || finish === undefined) {
        if (finish?.reason === "error" && error?.retryable === true) replica.health.failure();
        else if (finish?.reason === "cancelled") replica.health.release();
        else {
          replica.health.success();
          replica.served += 1;
        }
        yield* held;
        if (finish !== undefined) yield finish;
        return;
      }
      // Dead or refusing before any output: mark it and move on to this session's next replica.
      replica.health.failure();
      lastError = error;
    }
    const exhausted =
      lastError ??
      new SparkError(
        "upstream_error",
        `Every replica of the pool is marked down (${this.replicas.map((replica) => replica.name).join(", ")}).`,
        { retryable: true },
      );
    yield* refusedStream(exhausted);
  }

  /**
   * Rendezvous order for a conversation's key (replicaAffinityKey); requests without one rotate
   * through the replicas. Replicas failing their probe come last: tried only when every other one
   * failed too.
   */
  private order(sessionKey: string | undefined): PooledReplica[] {
    let ordered: PooledReplica[];
    if (sessionKey === undefined) {
      const start = this.nextUnkeyed++ % this.replicas.length;
      ordered = [...this.replicas.slice(start), ...this.replicas.slice(0, start)];
    } else {
      ordered = [...this.replicas]
        .map((replica) => ({ replica, weight: rendezvousWeight(sessionKey, replica.name) }))
        .sort((left, right) => right.weight - left.weight)
        .map(({ replica }) => replica);
    }
    const isUp = (replica: PooledReplica): boolean => replica.check?.up !== false;
    return [...ordered.filter(isUp), ...ordered.filter((replica) => !isUp(replica))];
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.replicas[0]?.engine.listModels() ?? [];
  }

  async dispose(): Promise<void> {
    for (const replica of this.replicas) replica.check?.stop();
    await Promise.all(this.replicas.map((replica) => replica.engine.dispose()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

function rendezvousWeight(key: string, replica: string): number {
  return createHash("sha256").update(`${key}\u0000${replica}`).digest().readUInt32BE(0);
}
