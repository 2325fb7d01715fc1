// Codex CLI (the real binary from npm, over HTTP) through haproxy to two `spark serve` replicas
// sharing a real redis-server: the replica generating Codex's answer is SIGKILLed partway, Codex
// resends the request (its stream retry), and the other replica continues that response instead
// of generating it again: Codex finishes the turn with the whole answer, and the survivor counts a
// continued retry. (bench/codex-failover.ts measures the time this saves on a 30 s answer.)
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCodexExec } from "../clients/support/codex-cli.ts";
import {
  haproxyReplicasConfig,
  loadBalancerMissingReason,
  startHaproxy,
  type LoadBalancer,
} from "../support/load-balancers.ts";
import {
  freePort,
  redisMissingReason,
  startRedisServer,
  type RedisServer,
} from "../support/redis-server.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const LINE = Array.from({ length: 60 }, (_, index) => `w${index}`).join(" ");
const missing = redisMissingReason() ?? loadBalancerMissingReason("haproxy");

describe.skipIf(missing !== undefined)("Codex CLI's retry after its replica died", () => {
  let redis: RedisServer;
  let fleet: ReplicaFleet;
  let replicas: ServeReplica[];
  let balancer: LoadBalancer;

  beforeAll(async () => {
    redis = await startRedisServer();
    fleet = createReplicaFleet("");
    // 60 words at 50 ms: 3 s; killed 1 s in, when Codex has read a third of them.
    const script = fleet.script("answer", [{ text: LINE, delayMs: 50 }]);
    writeFileSync(
      `${fleet.home}/config.toml`,
      `default_model = "spark-script"\n[models."spark-script"]\nengine = "script"\npath = "${script}"\n` +
        `[serve]\nreplica_lease_ms = 1000\n`,
    );
    replicas = await Promise.all([
      fleet.start(["--store", redis.url]),
      fleet.start(["--store", redis.url]),
    ]);
    const port = await freePort();
    balancer = await startHaproxy(
      haproxyReplicasConfig(
        port,
        replicas.map((replica) => Number(new URL(replica.url).port)),
      ),
      port,
    );
    // No wait for health checks: haproxy starts its servers up (one failed check takes one down,
    // `fall 1`), and both replicas were ready before it started.
  }, 60_000);

  afterAll(async () => {
    await balancer?.stop();
    await fleet?.stopAll();
    await redis?.stop();
  });

  it("finishes the turn with the response continued on the other replica", async () => {
    const metricsOf = async (replica: ServeReplica): Promise<string> =>
      (await fetch(`${replica.url}/metrics`)).text();
    const codex = runCodexExec({
      serverUrl: balancer.url,
      model: "spark-script",
      websockets: false,
      prompt: "Count.",
    });
    let generating: ServeReplica | undefined;
    while (generating === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (const replica of replicas)
        if (/spark_gateway_active_streams 1\b/.test(await metricsOf(replica))) generating = replica;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await generating.kill("SIGKILL");
    const run = await codex;
    const survivor = replicas.find((replica) => replica !== generating)!;
    expect(run.code, `${run.stderr}\n${survivor.log}`).toBe(0);
    expect(run.stdout).toContain(LINE);
    const metrics = await metricsOf(survivor);
    expect(metrics).toContain('spark_gateway_retried_requests_total{outcome="continued"} 1');
    expect(metrics).toContain('spark_gateway_continued_responses_total{how="engine"} 1');
  }, 90_000);
});
