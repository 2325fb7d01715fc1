// Codex CLI (the real binary, over HTTP) through haproxy to two `spark serve` replicas sharing a
// real redis-server: the replica generating Codex's answer is SIGKILLed partway, and Codex's own
// retry (it resends the request when a stream is cut) reaches the other replica. Prints kill →
// Codex's completed turn, and how the survivor answered (a continuation, or a new generation).
// `--client sdk`: the `openai` SDK's non-streaming create instead (its retry after the reset).
// Run it in a checkout to measure that checkout: `npx tsx bench/codex-failover.ts [--runs N]`.
import OpenAI from "openai";
import { createReplicaFleet } from "../test/gateway/support/serve-replicas.ts";
import { runCodexExec } from "../test/clients/support/codex-cli.ts";
import { haproxyReplicasConfig, startHaproxy } from "../test/support/load-balancers.ts";
import { freePort, startRedisServer } from "../test/support/redis-server.ts";

const WORDS = 300;
const DELAY_MS = 100;
const KILL_AFTER_MS = 20_000;
const runsFlag = process.argv.indexOf("--runs");
const runs = runsFlag < 0 ? 1 : Number(process.argv[runsFlag + 1]);
const sdk = process.argv.includes("sdk");
const line = Array.from({ length: WORDS }, (_, index) => `w${index}`).join(" ");

for (let run = 0; run < runs; run += 1) {
  const redis = await startRedisServer();
  const fleet = createReplicaFleet("");
  const script = fleet.script("answer", [{ text: line, delayMs: DELAY_MS }]);
  // The default lease (replica_lease_ms 3000): a takeover waits for it to lapse.
  await import("node:fs").then(({ writeFileSync }) =>
    writeFileSync(
      `${fleet.home}/config.toml`,
      `default_model = "spark-script"\n[models."spark-script"]\nengine = "script"\npath = "${script}"\n`,
    ),
  );
  const replicas = await Promise.all([
    fleet.start(["--store", redis.url]),
    fleet.start(["--store", redis.url]),
  ]);
  const port = await freePort();
  const balancer = await startHaproxy(
    haproxyReplicasConfig(
      port,
      replicas.map((replica) => Number(new URL(replica.url).port)),
    ),
    port,
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const metricsOf = async (url: string): Promise<string> => (await fetch(`${url}/metrics`)).text();
  const codex = sdk
    ? new OpenAI({ apiKey: "unused", baseURL: `${balancer.url}/v1`, maxRetries: 2 }).responses
        .create({ model: "spark-script", input: "Count." })
        .then((response) => ({ code: 0, stdout: response.output_text }))
    : runCodexExec({
        serverUrl: balancer.url,
        model: "spark-script",
        websockets: false,
        prompt: "Count.",
      });
  let generating: (typeof replicas)[number] | undefined;
  while (generating === undefined) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const replica of replicas)
      if (/spark_gateway_active_streams 1\b/.test(await metricsOf(replica.url)))
        generating = replica;
  }
  const startedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, KILL_AFTER_MS));
  await generating.kill("SIGKILL");
  const killedAt = performance.now();
  const result = await codex;
  const completedAt = performance.now();
  const survivor = replicas.find((replica) => replica !== generating)!;
  const metrics = await metricsOf(survivor.url);
  const counted = (name: string): string =>
    metrics
      .split("\n")
      .filter((entry) => entry.startsWith(name))
      .join(", ") || "none";
  console.log(
    [
      `run ${run + 1}: answer ${(WORDS * DELAY_MS) / 1000} s, killed ${Math.round((killedAt - startedAt) / 100) / 10} s in`,
      `kill → ${sdk ? "SDK" : "Codex"} completed ${Math.round(completedAt - killedAt)} ms (exit ${result.code}, whole answer: ${result.stdout.includes(line)})`,
      `survivor: ${counted("spark_gateway_retried_requests_total")}; ${counted("spark_gateway_continued_responses_total")}`,
    ].join("\n  "),
  );
  await balancer.stop();
  await fleet.stopAll();
  await redis.stop();
}
