// `spark serve --workers N`: N gateway processes on one port (node:cluster), so a machine's cores
// share the serving work. Without --store the primary keeps the store in its memory and answers
// the workers over IPC; with Redis each worker uses it directly. A worker that dies is replaced,
// and its lease ends at once, so a response it was generating can be resumed on another worker.
import cluster, { type Worker } from "node:cluster";
import { availableParallelism } from "node:os";
import { answerStoreCall, isStoreCall } from "../gateway/store/workers-store.ts";
import { MemoryStoreCore } from "../gateway/store/memory-store-core.ts";
import type { ServeConfig } from "../gateway/serve-config.ts";
import { describeRedisUrl } from "../gateway/store/describe-redis-url.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { hangupMeansExit, IMMEDIATE_EXIT_CODE } from "./serve-signals.ts";

/** Set in a worker's environment: it serves, with the primary's store when there is no Redis. */
export const WORKER_ENVIRONMENT = "SPARK_SERVE_WORKER";

export function isServeWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_ENVIRONMENT] === "1";
}

/** `--workers`: a count, or "auto" for one per core. */
export function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === "auto") return availableParallelism();
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 256) {
    throw new SparkError(
      "invalid_config",
      `--workers: expected a whole number from 1 to 256, or "auto", got "${value}".`,
    );
  }
  return count;
}

/** Runs the primary until SIGINT or SIGTERM has drained every worker; resolves with the exit
 * code. The workers re-run this command as workers. */
export async function runServePrimary(
  count: number,
  config: ServeConfig,
  log: (line: string) => void,
): Promise<number> {
  const core =
    config.store === undefined
      ? new MemoryStoreCore({
          responses: {
            maxEntries: config.responseStoreMaxEntries,
            maxBytes: config.responseStoreMaxBytes,
            ttlMs: config.responseStoreTtlSeconds * 1000,
          },
          leaseMs: config.replicaLeaseMs,
          liveGraceMs: config.resumeGraceSeconds * 1000,
        })
      : undefined;
  const replicaOf = new Map<number, string>();
  const listening = new Set<number>();
  let stopping = false;
  let startupFailure: ((code: number) => void) | undefined;
  cluster.on("message", (worker: Worker, message: unknown) => {
    if (core === undefined || !isStoreCall(message)) return;
    replicaOf.set(worker.id, message.replica);
    worker.send(answerStoreCall(core, message));
  });
  const fork = (): Worker => cluster.fork({ [WORKER_ENVIRONMENT]: "1" });
  cluster.on("exit", (worker: Worker, code: number | null, signal: string | null) => {
    const replica = replicaOf.get(worker.id);
    // Its responses in flight can be continued by another worker now, not after the lease.
    if (replica !== undefined) core?.endLease(replica);
    if (stopping) return;
    if (!listening.has(worker.id)) {
      startupFailure?.(code ?? 1);
      return;
    }
    log(`spark serve: worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    fork();
  });
  const started = new Promise<string>((resolve, reject) => {
    startupFailure = (code) =>
      reject(
        new SparkError(
          "internal_error",
          `A worker failed to start (exit ${code}); see its error above.`,
        ),
      );
    cluster.on("listening", (worker: Worker, address) => {
      listening.add(worker.id);
      if (listening.size === count) resolve(`${address.address}:${address.port}`);
    });
  });
  for (let index = 0; index < count; index += 1) fork();
  // Each worker drains itself on SIGTERM (serve-signals.ts); the primary waits for all of them.
  const stop = async (signal: NodeJS.Signals = "SIGTERM"): Promise<void> => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once("exit", () => resolve());
            worker.process.kill(signal);
          }),
      ),
    );
  };
  try {
    const address = await started;
    startupFailure = undefined;
    const store =
      config.store === undefined
        ? "the primary's memory, over IPC"
        : describeRedisUrl(config.store);
    log(`  Workers: ${count} on ${address} (one port; store: ${store})`);
  } catch (error) {
    await stop();
    throw error;
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
    // Each worker reloads on its own; in a terminal a hangup stops them all, as SIGTERM does.
    process.on("SIGHUP", () => {
      if (hangupMeansExit()) {
        resolve("SIGHUP");
        return;
      }
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGHUP");
    });
  });
  log(`spark serve: ${signal}: draining ${count} workers`);
  // Ctrl+C again (the terminal sends it to every worker too): no more waiting.
  process.on("SIGINT", () => {
    log("spark serve: SIGINT again; stopping the workers now");
    void stop("SIGKILL").then(() => process.exit(IMMEDIATE_EXIT_CODE));
  });
  // A worker that does not finish its drain is not waited for past its grace period.
  const deadline = setTimeout(
    () => {
      log("spark serve: workers still running after the drain's grace period; killing them");
      void stop("SIGKILL");
    },
    config.drainGraceSeconds * 1000 + HARD_STOP_MARGIN_MS,
  );
  deadline.unref();
  await stop();
  clearTimeout(deadline);
  return 0;
}

/** Past the drain's grace period, how long a worker gets to close before it is killed. */
const HARD_STOP_MARGIN_MS = 10_000;
