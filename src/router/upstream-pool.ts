// One model served by several replicas (e.g. two vLLM servers): requests with the same session key
// (a response chain or prompt_cache_key) go to the same replica so its prefix cache hits, chosen by
// rendezvous hashing over the healthy replicas; a replica that fails before any output is marked by
// its breaker (passive health checking) and the request moves to the next replica in that
// session's order, so only the dead replica's sessions move and they come back when it recovers.
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
import { CircuitBreaker, type BreakerSettings } from "./circuit-breaker.ts";

export interface PoolReplica {
  /** What it is called in errors and metrics: its base URL. */
  name: string;
  engine: Engine;
}

export interface PoolOptions {
  /** A replica is out after this many failures in the window, and probed again after `openMs`. */
  health?: BreakerSettings;
  now?: () => number;
  onReplicaState?: (replica: string, state: string) => void;
}

const DEFAULT_HEALTH: BreakerSettings = { failures: 1, windowMs: 10_000, openMs: 5_000 };

interface PooledReplica extends PoolReplica {
  health: CircuitBreaker;
  served: number;
}

export class UpstreamPool implements Engine {
  readonly kind: string;
  private readonly replicas: PooledReplica[];
  private nextUnkeyed = 0;

  constructor(replicas: readonly PoolReplica[], options: PoolOptions = {}) {
    if (replicas.length === 0)
      throw new SparkError("invalid_config", "A pool needs at least one replica.");
    this.kind = replicas[0]?.engine.kind ?? "pool";
    this.replicas = replicas.map((replica) => ({
      ...replica,
      served: 0,
      health: new CircuitBreaker(options.health ?? DEFAULT_HEALTH, options.now, (state) =>
        options.onReplicaState?.(replica.name, state),
      ),
    }));
  }

  /** Requests each replica served (finished without an error), for tests and diagnostics. */
  servedCounts(): Record<string, number> {
    return Object.fromEntries(this.replicas.map((replica) => [replica.name, replica.served]));
  }

  async *stream(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): AsyncIterable<EngineEvent> {
    let lastError: SparkError | undefined;
    for (const replica of this.order(request.sessionKey)) {
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

  /** Rendezvous order for a session key; requests without one rotate through the replicas. */
  private order(sessionKey: string | undefined): PooledReplica[] {
    if (sessionKey === undefined) {
      const start = this.nextUnkeyed++ % this.replicas.length;
      return [...this.replicas.slice(start), ...this.replicas.slice(0, start)];
    }
    return [...this.replicas]
      .map((replica) => ({ replica, weight: rendezvousWeight(sessionKey, replica.name) }))
      .sort((left, right) => right.weight - left.weight)
      .map(({ replica }) => replica);
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.replicas[0]?.engine.listModels() ?? [];
  }

  async dispose(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.engine.dispose()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

function rendezvousWeight(key: string, replica: string): number {
  return createHash("sha256").update(`${key}\u0000${replica}`).digest().readUInt32BE(0);
}
