// A Redis at maxmemory (noeviction) keeps the replicas' leases and slots: two real `spark serve`
// replicas share a real redis-server that fills up while one of them streams a response longer
// than several leases. Its lease is still renewed (the other replica does not take it for dead
// and take the response over), its slot too (max_concurrency_per_key still holds across the
// replicas), and a new slot can be taken once it is free. Before, the renewal was refused (OOM):
// the lease lapsed after one lease period and the key's slot with it.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { deltaText, readSse } from "./support/sse-reader.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-full";
const LEASE_MS = 500;
const LINE = Array.from({ length: 30 }, (_, index) => `word${index}`).join(" ");
const auth = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
const redisMissing = redisMissingReason();

describe.skipIf(redisMissing !== undefined)("Redis at maxmemory keeps leases and slots", () => {
  let redis: RedisServer;
  let admin: Redis;
  let fleet: ReplicaFleet;
  let streaming: ServeReplica;
  let other: ServeReplica;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    fleet = createReplicaFleet(
      `[serve]\napi_keys = ["${KEY}"]\nreplica_lease_ms = ${LEASE_MS}\nmax_concurrency_per_key = 1\n`,
    );
    // 30 words at 100 ms: 3 s, six leases.
    const script = fleet.script("slow", [{ text: LINE, delayMs: 100 }, { text: "Short." }]);
    const args = ["--store", redis.url, "--model", `script:${script}`];
    [streaming, other] = await Promise.all([fleet.start(args), fleet.start(args)]);
  }, 60_000);

  afterAll(async () => {
    await admin?.config("SET", "maxmemory", "0").catch(() => undefined);
    admin?.disconnect();
    await fleet?.stopAll();
    await redis?.stop();
  });

  it("renews the streaming replica's lease and slot while full, and takes new slots", async () => {
    const response = await fetch(`${streaming.url}/v1/responses`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "script", input: "Count slowly.", stream: true }),
    });
    const replica = response.headers.get("x-spark-replica");
    const stream = readSse(response);
    await stream.waitFor((event) => event.type === "response.output_text.delta");

    await admin.set("filler", "x".repeat(1_000_000));
    await admin.config("SET", "maxmemory-policy", "noeviction");
    const used = Number(/used_memory:(\d+)/.exec(await admin.info("memory"))?.[1]);
    await admin.config("SET", "maxmemory", String(Math.floor(used / 2)));
    await expect(admin.set("filler:probe", "z")).rejects.toThrow(/OOM/);

    // Three leases later: still alive, and its slot still counts on the other replica.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3));
    expect(await admin.pttl(`spark:lease:${replica}`)).toBeGreaterThan(0);
    const refused = await fetch(`${other.url}/v1/responses`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "script", input: "Meanwhile?" }),
    });
    expect(refused.status).toBe(429);

    const final = await stream.waitFor((event) => event.type.startsWith("response.completed"));
    expect(deltaText(stream.events)).toBe(LINE);
    expect((final.response as { status: string }).status).toBe("completed");
    expect(other.log).not.toContain("continued here");
    // The slot is free again, and a new one is taken while Redis is still full.
    const next = await fetch(`${other.url}/v1/responses`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "script", input: "Now?" }),
    });
    expect(next.status).toBe(200);
    await expect(admin.set("filler:probe", "z")).rejects.toThrow(/OOM/);
  }, 60_000);
});
