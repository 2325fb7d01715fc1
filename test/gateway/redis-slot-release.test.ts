// A client may send its next request the moment it reads a response's final event (Codex CLI does),
// to any replica: the finished response's concurrency slot must already be free in Redis. Two real
// `spark serve` replicas share a real redis-server with max_concurrency_per_key = 1; "far" reaches
// it through a loopback relay that delivers its commands 150 ms late (a Redis in another zone),
// "near" directly. Each case ends a response on far and, from the final event's handler, sends the
// next request to near. Before, far sent the slot's release after (or beside) the final event and
// did not wait for Redis to apply it: near's request arrived first and got 429, on every path.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { startLatencyProxy, type LatencyProxy } from "../support/latency-proxy.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";
import { readSse } from "./support/sse-reader.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-slot-release";
/** Far's commands reach Redis this late: far longer than near takes to take the slot. */
const FAR_DELAY_MS = 150;
const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
const redisMissing = redisMissingReason();

/** The next request, sent to near as soon as the caller saw the final event. */
async function nextRequest(near: ServeReplica): Promise<{ status: number; text: string }> {
  const response = await fetch(`${near.url}/v1/responses`, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: "script", input: "Next." }),
  });
  return { status: response.status, text: await response.text() };
}

/** Reads a Chat Completions stream until the chunk that carries finish_reason. */
async function untilFinishChunk(response: Response): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended without a finish_reason: ${buffer}`);
    buffer += value;
    for (const line of buffer.split("\n")) {
      if (!line.startsWith("data: {")) continue;
      const chunk = JSON.parse(line.slice(6)) as { choices: { finish_reason: string | null }[] };
      if (chunk.choices[0]?.finish_reason != null) {
        // The rest ([DONE]) is read on, unawaited, so the connection ends normally.
        void (async () => {
          while (!(await reader.read()).done);
        })();
        return;
      }
    }
  }
}

describe.skipIf(redisMissing !== undefined)("a finished response's slot is free in Redis", () => {
  let redis: RedisServer;
  let proxy: LatencyProxy;
  let admin: Redis;
  let fleet: ReplicaFleet;
  let far: ServeReplica;
  let near: ServeReplica;

  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startLatencyProxy({ host: "127.0.0.1", port: redis.port }, FAR_DELAY_MS);
    admin = new Redis(redis.url);
    fleet = createReplicaFleet(`[serve]\napi_keys = ["${KEY}"]\nmax_concurrency_per_key = 1\n`);
    const turns = Array.from({ length: 10 }, (_, index) => ({ text: `Answer ${index}.` }));
    const args = (store: string, name: string): string[] => [
      "--store",
      store,
      "--model",
      `script:${fleet.script(name, turns)}`,
    ];
    [far, near] = await Promise.all([
      fleet.start(args(`redis://127.0.0.1:${proxy.port}`, "far")),
      fleet.start(args(redis.url, "near")),
    ]);
  }, 60_000);

  afterAll(async () => {
    admin?.disconnect();
    await fleet?.stopAll();
    await proxy?.close();
    await redis?.stop();
  });

  it("over Responses SSE", async () => {
    const response = await fetch(`${far.url}/v1/responses`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "script", input: "First.", stream: true }),
    });
    await readSse(response).waitFor((event) => event.type === "response.completed");
    expect(await nextRequest(near)).toMatchObject({ status: 200 });
  }, 20_000);

  it("over Responses without streaming", async () => {
    const response = await fetch(`${far.url}/v1/responses`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "script", input: "First." }),
    });
    expect(response.status).toBe(200);
    await response.json();
    expect(await nextRequest(near)).toMatchObject({ status: 200 });
  }, 20_000);

  it("over the Responses WebSocket", async () => {
    const socket = await RawWsClient.connect(far.url, { authorization: `Bearer ${KEY}` });
    try {
      socket.send({ type: "response.create", model: "script", input: "First." });
      expect((await socket.finalEvent()).type).toBe("response.completed");
      expect(await nextRequest(near)).toMatchObject({ status: 200 });
    } finally {
      socket.close();
    }
  }, 20_000);

  it("over Chat Completions", async () => {
    const response = await fetch(`${far.url}/v1/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: "script",
        messages: [{ role: "user", content: "First." }],
        stream: true,
      }),
    });
    expect(response.status).toBe(200);
    await untilFinishChunk(response);
    expect(await nextRequest(near)).toMatchObject({ status: 200 });
  }, 20_000);

  it("holds no slot once every response has ended", async () => {
    const keys = await admin.keys("spark:slots:*");
    const held = await Promise.all(keys.map((key) => admin.zcard(key)));
    expect(held.reduce((sum, count) => sum + count, 0)).toBe(0);
  });
});
