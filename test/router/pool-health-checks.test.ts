// Active health checks of a pool's replicas through the real gateway and router: a replica whose
// probe fails (5xx, or silence past the timeout) gets no user request, comes back once its probe
// passes, and /metrics shows it; probing stops when the engine is disposed and is off at interval 0.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReplayServer } from "../openai-compatible/replay-server.ts";
import {
  createResponse,
  readMetrics,
  startRoutedGateway,
  type RoutedGateway,
} from "./routed-gateway.ts";

const SESSIONS = Array.from({ length: 12 }, (_, index) => `session-${index}`);
const bounded = 15_000;

let first: ReplayServer;
let second: ReplayServer;
let gateway: RoutedGateway | undefined;

beforeEach(async () => {
  [first, second] = await Promise.all([ReplayServer.start(), ReplayServer.start()]);
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await Promise.all([first.close(), second.close()]);
});

function poolToml(healthCheck: string): string {
  return `
default_model = "vllm"
[models.vllm]
engine = "openai-compatible"
base_urls = ["${first.baseUrl}", "${second.baseUrl}"]
model = "qwen"
${healthCheck}
`;
}

/** Creates the pool the way `spark serve` does at start-up, so probing begins before any request. */
async function startPool(healthCheck: string): Promise<RoutedGateway> {
  gateway = await startRoutedGateway(poolToml(healthCheck));
  await gateway.router.load("vllm");
  return gateway;
}

function upLine(replica: ReplayServer, value: 0 | 1): RegExp {
  const labels = `model="vllm",replica="${replica.baseUrl}"`.replace(/[.?]/g, "\\$&");
  return new RegExp(`^spark_router_replica_up\\{${labels}\\} ${value}$`, "m");
}

/** Polls /metrics until it matches: probes run on their own clock, so the test waits for them. */
async function waitForMetrics(url: string, pattern: RegExp): Promise<string> {
  for (;;) {
    const metrics = await readMetrics(url);
    if (pattern.test(metrics)) return metrics;
    await sleep(20);
  }
}

async function turnForEverySession(url: string, turn: number): Promise<void> {
  for (const session of SESSIONS) {
    const result = await createResponse(url, {
      input: `${session}: turn ${turn}`,
      prompt_cache_key: session,
    });
    expect(result.status).toBe("completed");
  }
}

describe("pool health checks", () => {
  it(
    "a replica failing its probe gets no user request, and gets its sessions back once it passes",
    { timeout: bounded },
    async () => {
      first.modelsStatus = 503;
      const { url } = await startPool(
        "health_check_interval_ms = 30\nhealth_check_timeout_ms = 1000",
      );
      await waitForMetrics(url, upLine(first, 0));

      await turnForEverySession(url, 1);
      expect(first.chatRequests()).toHaveLength(0);
      expect(second.chatRequests()).toHaveLength(SESSIONS.length);

      first.modelsStatus = 200;
      await waitForMetrics(url, upLine(first, 1));
      await turnForEverySession(url, 2);
      // Rendezvous hashing gives the first replica its share of the sessions back.
      expect(first.chatRequests().length).toBeGreaterThan(0);
      expect(first.chatRequests().length + second.chatRequests().length).toBe(SESSIONS.length * 2);

      const metrics = await readMetrics(url);
      expect(metrics).toMatch(
        /^spark_router_replica_probes_total\{model="vllm",replica="[^"]+",outcome="failed"\} [1-9]/m,
      );
      expect(metrics).toMatch(
        /^spark_router_replica_requests_total\{model="vllm",replica="[^"]+"\} [1-9]/m,
      );
    },
  );

  it(
    "a probe unanswered within its timeout takes the replica out",
    { timeout: bounded },
    async () => {
      second.modelsDelayMs = 60_000;
      const { url } = await startPool(
        "health_check_interval_ms = 30\nhealth_check_timeout_ms = 200",
      );
      await waitForMetrics(url, upLine(second, 0));
      await turnForEverySession(url, 1);
      expect(second.chatRequests()).toHaveLength(0);
      expect(first.chatRequests()).toHaveLength(SESSIONS.length);
    },
  );

  it("probing stops when the engine is disposed", { timeout: bounded }, async () => {
    const { url } = await startPool("health_check_interval_ms = 10");
    await waitForMetrics(
      url,
      /^spark_router_replica_probes_total\{model="vllm",replica="[^"]+",outcome="passed"\} [3-9]/m,
    );
    await gateway?.close();
    gateway = undefined;
    const probes = first.modelsRequests().length;
    await sleep(150);
    expect(first.modelsRequests()).toHaveLength(probes);
  });

  it("interval 0 turns probing off", { timeout: bounded }, async () => {
    const { url } = await startPool("health_check_interval_ms = 0");
    expect((await createResponse(url, { input: "hi", prompt_cache_key: "a" })).status).toBe(
      "completed",
    );
    await sleep(150);
    expect(first.modelsRequests()).toHaveLength(0);
    expect(second.modelsRequests()).toHaveLength(0);
    expect(await readMetrics(url)).toMatch(upLine(first, 1));
  });
});
