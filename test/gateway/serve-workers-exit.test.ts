// `spark serve --workers 2` stops as a whole on SIGTERM and on SIGINT, with the primary's memory
// store and with Redis: the primary and both workers are gone and the primary exits 0, as systemd
// and Kubernetes expect (they would otherwise SIGKILL it after their timeout).
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { createReplicaFleet, type ReplicaFleet } from "./support/serve-replicas.ts";

const KEY = "sk-workers-exit";
const redisMissing = redisMissingReason();

/** The `spark serve` processes whose parent is `pid` (a primary's workers; not the sandbox probe
 * the primary may still be running, which made this count 3 on a loaded machine). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes(" serve "))
      .map((line) => Number.parseInt(line.trim(), 10))
      .filter((child) => child > 0);
  } catch {
    return [];
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("spark serve --workers 2 exits on a signal", () => {
  let fleet: ReplicaFleet;
  let redis: RedisServer | undefined;
  let script: string;

  beforeAll(async () => {
    fleet = createReplicaFleet(`[serve]\napi_keys = ["${KEY}"]\ndrain_grace_seconds = 2\n`);
    script = fleet.script("exit", [{ text: "ok" }]);
    if (redisMissing === undefined) redis = await startRedisServer();
  }, 30_000);

  afterAll(async () => {
    await fleet?.stopAll();
    await redis?.stop();
  });

  const cases: Array<[string, NodeJS.Signals, boolean]> = [
    ["SIGTERM, memory store", "SIGTERM", false],
    ["SIGINT, memory store", "SIGINT", false],
    ["SIGTERM, Redis", "SIGTERM", true],
    ["SIGINT, Redis", "SIGINT", true],
  ];
  for (const [name, signal, withRedis] of cases) {
    it.skipIf(withRedis && redisMissing !== undefined)(
      name,
      async () => {
        const store = withRedis && redis !== undefined ? ["--store", redis.url] : [];
        const serve = await fleet.start([
          "--workers",
          "2",
          "--model",
          `script:${script}`,
          ...store,
        ]);
        const workers = childrenOf(serve.pid);
        expect(workers).toHaveLength(2);
        const signalledAt = performance.now();
        process.kill(serve.pid, signal);
        const code = await Promise.race([
          serve.exited,
          new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 10_000)),
        ]);
        expect(code, serve.log).toBe(0);
        expect(performance.now() - signalledAt).toBeLessThan(10_000);
        expect(workers.filter(isAlive)).toEqual([]);
      },
      60_000,
    );
  }
});
