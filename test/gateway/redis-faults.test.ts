// Redis faults cost at most one short timeout, with real redis-server processes and a real
// `spark serve`: a hung Redis (SIGSTOP) opens the store's breaker after one command timeout, so
// requests without stored state are served at once and chains get a fast 503 while /readyz says
// why; it closes again once Redis answers. A Redis at maxmemory (noeviction) still serves reads and
// chains (no write on the read path), and a response it cannot keep says `store: false` (counted)
// rather than `completed` and lost. Caps are per tenant, and evicted responses take their items.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-faults";
const OTHER_KEY = "sk-faults-other";
const redisMissing = redisMissingReason();

interface Turn {
  status: number;
  id?: string;
  store?: boolean;
  code?: string;
  ms: number;
}

async function turn(url: string, body: Record<string, unknown>, key = KEY): Promise<Turn> {
  const startedAt = performance.now();
  const response = await fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "script", ...body }),
  });
  const json = (await response.json()) as {
    id?: string;
    store?: boolean;
    error?: { code: string };
  };
  return {
    status: response.status,
    ...(json.id === undefined ? {} : { id: json.id }),
    ...(json.store === undefined ? {} : { store: json.store }),
    ...(json.error === undefined || json.error === null ? {} : { code: json.error.code }),
    ms: performance.now() - startedAt,
  };
}

async function metric(url: string, line: string): Promise<string | undefined> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${KEY}` } })
  ).text();
  return text.split("\n").find((candidate) => candidate.startsWith(line));
}

describe.skipIf(redisMissing !== undefined)("Redis faults", () => {
  let redis: RedisServer;
  let fleet: ReplicaFleet;
  let serve: ServeReplica;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    fleet = createReplicaFleet(
      `[serve]\napi_keys = ["${KEY}", "${OTHER_KEY}"]\nresponse_store_max_responses = 3\n`,
    );
    const script = fleet.script(
      "faults",
      Array.from({ length: 200 }, () => ({ text: "fine" })),
    );
    serve = await fleet.start(["--store", redis.url, "--model", `script:${script}`]);
  }, 60_000);

  afterAll(async () => {
    admin?.disconnect();
    await fleet?.stopAll();
    await redis?.stop();
  });

  it("caps each tenant apart, and an evicted response takes its item keys", async () => {
    const first = await turn(serve.url, { input: "mine, kept" }, OTHER_KEY);
    expect(first.status).toBe(200);
    for (let index = 0; index < 5; index += 1)
      expect((await turn(serve.url, { input: `flood ${index}` })).status).toBe(200);
    // The other tenant's response outlived five of this key's (cap 3 each, not 3 in all).
    const kept = await fetch(`${serve.url}/v1/responses/${first.id}`, {
      headers: { authorization: `Bearer ${OTHER_KEY}` },
    });
    expect(kept.status).toBe(200);
    // Four responses held in all (3 + 1), and only their items.
    expect(await admin.keys("spark:response:*")).toHaveLength(4);
    expect(await admin.keys("spark:item:*")).toHaveLength(4);
  }, 30_000);

  it("a hung Redis costs one short timeout: then fail fast, /readyz unready, back when it answers", async () => {
    const stored = await turn(serve.url, { input: "before the hang" });
    expect(stored.store).toBe(true);
    process.kill(redis.pid ?? 0, "SIGSTOP");
    try {
      const turns: Turn[] = [];
      for (let index = 0; index < 6; index += 1)
        turns.push(await turn(serve.url, { input: `during the hang ${index}` }));
      expect(turns.map((entry) => entry.status)).toEqual([200, 200, 200, 200, 200, 200]);
      // Not stored, and saying so rather than promising a chain.
      expect(turns.every((entry) => entry.store === false)).toBe(true);
      // One command timeout (1 s) at most, once; not one per request (the slot and the store).
      const afterFirst = turns.slice(1).reduce((sum, entry) => sum + entry.ms, 0);
      expect(afterFirst).toBeLessThan(1500);
      const chained = await turn(serve.url, {
        input: "chained",
        previous_response_id: stored.id,
      });
      expect(chained.status).toBe(503);
      expect(chained.code).toBe("store_unavailable");
      expect(chained.ms).toBeLessThan(500);
      const ready = await fetch(`${serve.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ reasons: ["store_unreachable"] });
      expect(await metric(serve.url, "spark_gateway_store_reachable ")).toBe(
        "spark_gateway_store_reachable 0",
      );
      expect(await metric(serve.url, "spark_gateway_responses_not_stored_total")).toMatch(
        /reason="store_unavailable"/,
      );
    } finally {
      process.kill(redis.pid ?? 0, "SIGCONT");
    }
    let readyStatus = 0;
    for (let attempt = 0; attempt < 50 && readyStatus !== 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      readyStatus = (await fetch(`${serve.url}/readyz`)).status;
    }
    expect(readyStatus).toBe(200);
    const chained = await turn(serve.url, { input: "after", previous_response_id: stored.id });
    expect(chained.status).toBe(200);
    expect(serve.log).toMatch(/failing fast and probing/);
    expect(serve.log).toMatch(/reachable again/);
  }, 60_000);

  it("Redis at maxmemory (noeviction) serves reads and chains; a response it cannot keep says so", async () => {
    const stored = await turn(serve.url, { input: "stored before it filled" });
    expect(stored.store).toBe(true);
    await admin.config("SET", "maxmemory-policy", "noeviction");
    // Below what it holds: full, as a Redis that reached its limit with noeviction is.
    const used = Number(/used_memory:(\d+)/.exec(await admin.info("memory"))?.[1]);
    await admin.config("SET", "maxmemory", String(Math.floor(used / 2)));
    try {
      await expect(admin.set("filler:probe", "z")).rejects.toThrow(/OOM/);

      const read = await fetch(`${serve.url}/v1/responses/${stored.id}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(read.status).toBe(200);
      const chained = await turn(serve.url, {
        input: "x".repeat(100_000),
        previous_response_id: stored.id,
      });
      expect(chained.status).toBe(200);
      expect(chained.store).toBe(false);
      expect(await metric(serve.url, "spark_gateway_responses_not_stored_total")).toBeDefined();
      expect(serve.log).toMatch(/is full/);
    } finally {
      await admin.config("SET", "maxmemory", "0");
    }
  }, 60_000);
});
