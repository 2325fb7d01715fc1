// A client's retry of a request whose replica died is answered from that response, not generated
// again: two real `spark serve` replicas share a real redis-server; the one generating is killed
// with SIGKILL mid-stream, and the same request body sent again (a raw retry over SSE, as Codex
// CLI sends; the `openai` SDK's own retry of a non-streaming request through haproxy) reaches the
// other replica, which finds the response by the request's fingerprint, replays what was logged
// and continues it: the same response id, every sequence number once, the whole text, and the
// survivor's metrics count a continuation rather than a new generation. The cases share only the
// Redis (each its own replicas and request bodies), and mostly wait on paced scripts and leases:
// they run at once.
import { Redis } from "ioredis";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { deltaText, readSse } from "./support/sse-reader.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-retry";
const WORDS = Array.from({ length: 40 }, (_, index) => `word${index}`);
const LINE = WORDS.join(" ");
const auth = { authorization: `Bearer ${KEY}` };
const redisMissing = redisMissingReason();
const haproxyMissing = redisMissing ?? loadBalancerMissingReason("haproxy");
/** Its cases at once (see above). */
const describeWithRedis = describe.skipIf(redisMissing !== undefined).concurrent;

async function metricsOf(replica: ServeReplica): Promise<string> {
  return (await fetch(`${replica.url}/metrics`, { headers: auth })).text();
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describeWithRedis("a retried request after its replica died", () => {
  let redis: RedisServer;
  let admin: Redis;
  let fleet: ReplicaFleet;
  let args: string[];

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    fleet = createReplicaFleet(`[serve]\napi_keys = ["${KEY}"]\nreplica_lease_ms = 1000\n`);
    // Each replica reads the script from its first line: a request generated again from scratch
    // on the survivor would give the same text, so the proof is its id and the survivor's counts.
    const script = fleet.script("line", [{ text: LINE, delayMs: 60 }]);
    args = ["--store", redis.url, "--model", `script:${script}`];
  }, 60_000);

  afterAll(async () => {
    admin?.disconnect();
    await fleet?.stopAll();
    await redis?.stop();
  });

  it("SSE: the same body sent again is the same response, replayed from the start and continued", async () => {
    const [generating, survivor] = await Promise.all([fleet.start(args), fleet.start(args)]);
    const body = { model: "script", input: "Count.", stream: true, store: false };
    const first = readSse(await post(generating.url, body));
    await first.waitFor(() => deltaText(first.events).split(" ").length > 12);
    await generating.kill("SIGKILL");
    const killedAt = performance.now();
    expect(await first.ended).not.toBe("ended");
    const responseId = (first.events[0]?.response as { id: string }).id;

    const retry = await post(survivor.url, body);
    expect(retry.status).toBe(200);
    const second = readSse(retry);
    const final = await second.waitFor((event) => event.type.startsWith("response.completed"));
    console.log(`SSE retry: SIGKILL → completed ${Math.round(performance.now() - killedAt)} ms`);
    // The retry's stream alone is a whole response: numbered from 0, once each, the whole text.
    const sequence = second.events.map((event) => event.sequence_number);
    expect(sequence).toEqual(sequence.map((_, index) => index));
    expect(deltaText(second.events)).toBe(LINE);
    const response = final.response as {
      id: string;
      output: Array<{ content: [{ text: string }] }>;
    };
    expect(response.id).toBe(responseId);
    expect(response.output[0]?.content[0]?.text).toBe(LINE);
    const metrics = await metricsOf(survivor);
    expect(metrics).toContain('spark_gateway_retried_requests_total{outcome="continued"} 1');
    expect(metrics).toContain('spark_gateway_continued_responses_total{how="engine"} 1');
    expect(survivor.log).toContain(`${responseId} answers a retried request`);
  }, 60_000);

  it("a different body is a new request, and one finished on a live replica is generated again", async () => {
    const [one, two] = await Promise.all([fleet.start(args), fleet.start(args)]);
    const body = { model: "script", input: "Count once.", max_output_tokens: 3 };
    const first = (await (await post(one.url, body)).json()) as { id: string };
    const again = (await (await post(two.url, body)).json()) as { id: string };
    const other = (await (await post(two.url, { ...body, input: "Other." })).json()) as {
      id: string;
    };
    expect(new Set([first.id, again.id, other.id]).size).toBe(3);
    expect(await metricsOf(two)).not.toContain("spark_gateway_retried_requests_total{");
  }, 60_000);

  it("a retry of a response cut while it streamed a tool call is generated again, not ended failed", async () => {
    const argumentsText = { text: "x".repeat(400) };
    const toolFleet = createReplicaFleet(
      `[serve]\napi_keys = ["${KEY}"]\nreplica_lease_ms = 1000\n`,
    );
    try {
      const script = toolFleet.script("call", [
        { toolCalls: [{ name: "save", arguments: argumentsText }], delayMs: 60 },
      ]);
      const toolArgs = ["--store", redis.url, "--model", `script:${script}`];
      const [generating, survivor] = await Promise.all([
        toolFleet.start(toolArgs),
        toolFleet.start(toolArgs),
      ]);
      const body = {
        model: "script",
        input: "Save it.",
        stream: true,
        tools: [{ type: "function", name: "save", parameters: { type: "object" } }],
      };
      const started = await post(generating.url, body);
      const replica = started.headers.get("x-spark-replica");
      const first = readSse(started);
      await first.waitFor(
        (event) =>
          event.type === "response.function_call_arguments.delta" &&
          first.events.filter((seen) => seen.type === event.type).length > 3,
      );
      await generating.kill("SIGKILL");
      const responseId = (first.events[0]?.response as { id: string }).id;
      // Until its lease has expired: the survivor then takes it for dead, the case in which a
      // text response would be continued.
      expect(replica).toMatch(/\S/);
      while ((await admin.exists(`spark:lease:${replica}`)) === 1)
        await new Promise((resolve) => setTimeout(resolve, 50));

      const retry = readSse(await post(survivor.url, body));
      const ended = await retry.waitFor((event) =>
        ["response.completed", "response.failed", "response.incomplete"].includes(event.type),
      );
      expect(ended.type).toBe("response.completed");
      const response = ended.response as {
        id: string;
        output: Array<{ type: string; arguments?: string }>;
      };
      expect(response.id).not.toBe(responseId);
      expect(JSON.parse(response.output[0]?.arguments ?? "null")).toEqual(argumentsText);
    } finally {
      await toolFleet.stopAll();
    }
  }, 60_000);

  describe.skipIf(haproxyMissing !== undefined)("through haproxy", () => {
    let balancer: LoadBalancer;
    let replicas: ServeReplica[];

    beforeAll(async () => {
      replicas = await Promise.all([fleet.start(args), fleet.start(args)]);
      const port = await freePort();
      balancer = await startHaproxy(
        haproxyReplicasConfig(
          port,
          replicas.map((replica) => Number(new URL(replica.url).port)),
        ),
        port,
      );
    }, 60_000);

    afterAll(async () => balancer?.stop());

    it("the openai SDK's retry of a non-streaming request gets the response continued", async () => {
      const client = new OpenAI({ apiKey: KEY, baseURL: `${balancer.url}/v1`, maxRetries: 2 });
      const answer = client.responses.create({ model: "script", input: "Count, please." });
      // Kill whichever replica generates it, a dozen words in.
      let generating: ServeReplica | undefined;
      while (generating === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        for (const replica of replicas)
          if (/spark_gateway_active_streams 1\b/.test(await metricsOf(replica)))
            generating = replica;
      }
      await new Promise((resolve) => setTimeout(resolve, 800));
      await generating.kill("SIGKILL");
      const killedAt = performance.now();
      const survivor = replicas.find((replica) => replica !== generating)!;
      const response = await answer;
      console.log(`SDK retry: SIGKILL → completed ${Math.round(performance.now() - killedAt)} ms`);
      expect(response.status).toBe("completed");
      expect(response.output_text).toBe(LINE);
      const metrics = await metricsOf(survivor);
      expect(metrics).toContain('spark_gateway_retried_requests_total{outcome="continued"} 1');
      expect(metrics).toContain('spark_gateway_continued_responses_total{how="engine"} 1');
    }, 60_000);
  });
});
