// Two real `spark serve` replicas (scripted engines) and a third `spark serve` in front whose model
// is a pool of them, as a user would run them; every scripted answer opens with its replica's tag,
// so a client can tell who answered. Used by the pool test and bench/routing-faults.ts.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startSparkServe, type SparkServeProcess } from "../clients/support/spark-serve-process.ts";

/** Every scripted answer is "<tag> w0 … w29", one word per 20 ms: ~0.6 s to stream. */
export const POOL_WORDS = Array.from({ length: 30 }, (_, index) => `w${index}`).join(" ");
export const REPLICA_TAGS = ["replica-one", "replica-two"] as const;
export type ReplicaTag = (typeof REPLICA_TAGS)[number];

export interface SparkServePool {
  replicas: SparkServeProcess[];
  front: SparkServeProcess;
  /** A replica's base URL as the front's config names it (its pool label in /metrics). */
  baseUrlOf(replica: SparkServeProcess): string;
  close(): Promise<void>;
}

export async function startSparkServePool(
  options: { healthCheckIntervalMs?: number } = {},
): Promise<SparkServePool> {
  const scripts = await mkdtemp(path.join(os.tmpdir(), "spark-pool-scripts-"));
  const replicas = await Promise.all(
    REPLICA_TAGS.map(async (tag) => {
      const script = path.join(scripts, `${tag}.jsonl`);
      const line = JSON.stringify({ text: `${tag} ${POOL_WORDS}`, delayMs: 20 });
      await writeFile(script, `${Array.from({ length: 80 }, () => line).join("\n")}\n`);
      return startSparkServe(
        `default_model = "replay"\n[models.replay]\nengine = "script"\npath = "${script}"\n`,
      );
    }),
  );
  const baseUrlOf = (replica: SparkServeProcess): string => `${replica.url}/v1`;
  const front = await startSparkServe(`
default_model = "pool"
[models.pool]
engine = "openai-compatible"
base_urls = [${replicas.map((replica) => `"${baseUrlOf(replica)}"`).join(", ")}]
model = "replay"
health_check_interval_ms = ${options.healthCheckIntervalMs ?? 100}
health_check_timeout_ms = 1000
`);
  return {
    replicas,
    front,
    baseUrlOf,
    async close() {
      await Promise.all([front, ...replicas].map(async (server) => server.stop()));
      await rm(scripts, { recursive: true, force: true });
    },
  };
}

/** Which replica answered: its tag opens every scripted answer. */
export function answeredBy(text: string): ReplicaTag | undefined {
  return REPLICA_TAGS.find((tag) => text.startsWith(tag));
}
