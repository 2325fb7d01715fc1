// Three real `spark serve` replicas sharing a real redis-server (loopback, nothing persisted), driven
// through the openai SDK as a client behind a load balancer would be: a chain started on one
// replica goes on on the others over HTTP and ResponsesWS, item_reference and GET /v1/responses/{id}
// work anywhere, each key sees only its own responses, and the per-key limit holds across replicas.
import OpenAI from "openai";
import type { Response } from "openai/resources/responses/responses";
import { ResponsesWS } from "openai/resources/responses/ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freePort,
  redisMissingReason,
  startRedisServer,
  type RedisServer,
} from "../support/redis-server.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-replica-one";
const OTHER_KEY = "sk-replica-two";
const redisMissing = redisMissingReason();
if (redisMissing !== undefined) console.warn(`Skipping the Redis replica tests: ${redisMissing}.`);

describe.skipIf(redisMissing !== undefined)("spark serve replicas sharing Redis", () => {
  let redis: RedisServer;
  let fleet: ReplicaFleet;
  let replicas: ServeReplica[];
  const client = (replica: ServeReplica, apiKey = KEY): OpenAI =>
    new OpenAI({ baseURL: `${replica.url}/v1`, apiKey, maxRetries: 0 });

  beforeAll(async () => {
    redis = await startRedisServer();
    fleet = createReplicaFleet(
      `[serve]\napi_keys = ["${KEY}", "${OTHER_KEY}"]\nmax_concurrency_per_key = 2\n`,
    );
    const turns = Array.from({ length: 40 }, (_, index) => ({ text: `Answer ${index}.` }));
    const slow = [{ text: "one two three four five six seven eight", delayMs: 150 }];
    const args = (script: string): string[] => [
      "--store",
      redis.url,
      "--model",
      `script:${script}`,
    ];
    replicas = await Promise.all([
      fleet.start(args(fleet.script("a", turns))),
      fleet.start(args(fleet.script("b", turns))),
      // c's WebSocket turn in the first case takes its first line; the limit case its two slow ones.
      fleet.start(args(fleet.script("c", [{ text: "Fast." }, ...slow, ...slow, ...turns]))),
    ]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.stopAll();
    await redis?.stop();
  });

  it("continues a chain on whichever replica gets the next turn, over HTTP and ResponsesWS", async () => {
    const [a, b, c] = replicas as [ServeReplica, ServeReplica, ServeReplica];
    const { data: first, response: firstHttp } = await client(a)
      .responses.create({ model: "script", input: "Hello." })
      .withResponse();
    const { data: second, response: secondHttp } = await client(b)
      .responses.create({ model: "script", input: "And then?", previous_response_id: first.id })
      .withResponse();
    expect(second.previous_response_id).toBe(first.id);
    // Affinity is a preference: b served the turn, and says a holds the chain's cache.
    const replicaA = firstHttp.headers.get("x-spark-replica");
    expect(replicaA).toBeTruthy();
    expect(secondHttp.headers.get("x-spark-replica")).not.toBe(replicaA);
    expect(secondHttp.headers.get("x-spark-cache-replica")).toBe(replicaA);
    const metrics = await fetch(`${b.url}/metrics`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(await metrics.text()).toContain('spark_gateway_chain_affinity_total{replica="other"} 1');
    // The stored conversation came from Redis: the second turn's input holds the first turn.
    expect(second.usage?.input_tokens).toBeGreaterThan(first.usage?.input_tokens ?? 0);

    const socket = new ResponsesWS(client(c));
    const finals: Response[] = [];
    const errors: unknown[] = [];
    const arrived = new Promise<void>((resolve) => {
      socket.on("response.completed", (event) => {
        finals.push(event.response);
        resolve();
      });
      socket.on("error", (error) => {
        errors.push(error);
        resolve();
      });
    });
    socket.send({
      type: "response.create",
      model: "script",
      input: [{ role: "user", content: "Over the socket." }],
      previous_response_id: second.id,
    });
    await arrived;
    socket.close();
    expect(errors).toEqual([]);
    const third = finals[0];
    expect(third?.previous_response_id).toBe(second.id);
    expect(third?.usage?.input_tokens).toBeGreaterThan(second.usage?.input_tokens ?? 0);

    // Stored by c's WebSocket turn, read back from a: GET and item_reference.
    const fetched = await client(a).responses.retrieve(third?.id ?? "");
    expect(fetched.output).toEqual(third?.output);
    const itemId = third?.output[0]?.id ?? "";
    const referenced = await client(b).responses.create({
      model: "script",
      input: [
        { type: "item_reference", id: itemId },
        { role: "user", content: "Quote it." },
      ],
    });
    expect(referenced.status).toBe("completed");
  }, 30_000);

  it("keeps each key's responses to itself on every replica", async () => {
    const [a, b] = replicas as [ServeReplica, ServeReplica];
    const mine = await client(a).responses.create({ model: "script", input: "Mine." });
    await expect(client(b, OTHER_KEY).responses.retrieve(mine.id)).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      client(b, OTHER_KEY).responses.create({
        model: "script",
        input: "Theirs?",
        previous_response_id: mine.id,
      }),
    ).rejects.toMatchObject({ status: 404, code: "previous_response_not_found" });
  }, 30_000);

  it("holds max_concurrency_per_key across replicas", async () => {
    const [a, b, c] = replicas as [ServeReplica, ServeReplica, ServeReplica];
    // c's next two lines are slow: two responses hold both of the key's slots for over a second.
    const sockets = await Promise.all(
      [c, c].map((replica) => RawWsClient.connect(replica.url, { authorization: `Bearer ${KEY}` })),
    );
    for (const socket of sockets)
      socket.send({ type: "response.create", model: "script", input: "Slow." });
    await Promise.all(
      sockets.map((socket) =>
        socket.waitFor((event) => event.type === "response.output_text.delta"),
      ),
    );
    for (const replica of [a, b]) {
      await expect(
        client(replica).responses.create({ model: "script", input: "One more?" }),
      ).rejects.toMatchObject({ status: 429 });
    }
    // Another key has slots of its own.
    const other = await client(b, OTHER_KEY).responses.create({ model: "script", input: "Mine." });
    expect(other.status).toBe("completed");
    await Promise.all(sockets.map((socket) => socket.finalEvent()));
    const after = await client(a).responses.create({ model: "script", input: "Now?" });
    expect(after.status).toBe("completed");
    for (const socket of sockets) socket.socket.close();
  }, 30_000);
});

describe("spark serve --store with no Redis there", () => {
  it("refuses to start, saying where it looked and what to do", async () => {
    const fleet = createReplicaFleet("");
    const port = await freePort();
    const script = fleet.script("a", [{ text: "never" }]);
    try {
      const started = fleet.start([
        "--store",
        `redis://127.0.0.1:${port}/2`,
        "--model",
        `script:${script}`,
      ]);
      const error = await started.then(
        () => undefined,
        (failure: unknown) => failure as Error,
      );
      expect(error?.message).toContain("exited (1)");
      expect(error?.message).toContain(`Cannot reach the store at redis://127.0.0.1:${port}/2`);
      expect(error?.message).toContain("ECONNREFUSED");
      expect(error?.message).toContain("leave out --store");
    } finally {
      await fleet.stopAll();
    }
  }, 30_000);
});
