// A turn's final event does not wait for Redis's reply to the stored response (write-ahead): the
// command is written to the connection first, so a follow-up on another replica still finds it.
// Two gateways share a real redis-server; the first one's store holds back every confirmation of a
// stored response, and the turn still completes, and chains on the other. Waiting for the reply
// (the path before write-ahead, `writeAhead: false`) holds the final event until it comes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { createGateway, modelsFromEngine, type Gateway } from "../../src/gateway/index.ts";
import type { GatewayStore } from "../../src/gateway/store/gateway-store.ts";
import {
  openRedisGatewayStore,
  type RedisGatewayStore,
} from "../../src/gateway/store/redis-gateway-store.ts";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

const redisMissing = redisMissingReason();
if (redisMissing !== undefined) console.warn(`Skipping the write-ahead tests: ${redisMissing}.`);

/** The store, with each stored response's confirmation held until `release` is called. */
function holdingConfirmations(store: RedisGatewayStore): {
  store: GatewayStore;
  release: () => void;
} {
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held = new Proxy(store, {
    get(target, property) {
      if (property === "putResponse") {
        return (...args: Parameters<GatewayStore["putResponse"]>) => {
          const confirmed = target.putResponse(...args);
          return gate.then(() => confirmed);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  });
  return { store: held, release };
}

describe.skipIf(redisMissing !== undefined)("stored responses written ahead", () => {
  let redis: RedisServer;
  const opened: Array<{ gateway: Gateway; store: GatewayStore }> = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const { gateway, store } of opened) {
      await gateway.close();
      await store.close();
    }
    await redis?.stop();
  });

  async function replica(
    name: string,
    writeAhead: boolean,
  ): Promise<{ url: string; release: () => void }> {
    const redisStore = await openRedisGatewayStore({
      url: redis.url,
      replicaId: name,
      responses: { maxEntries: 100, maxBytes: 1 << 20, ttlMs: 60_000 },
      leaseMs: 3000,
      liveGraceMs: 5000,
      writeAhead,
    });
    const { store, release } = holdingConfirmations(redisStore);
    const engine = createSyntheticEngine({ tokensPerSecond: Infinity, tokens: 8 });
    const gateway = createGateway({
      models: modelsFromEngine(engine),
      config: { host: "127.0.0.1", port: 0 },
      store,
    });
    opened.push({ gateway, store });
    return { url: (await gateway.listen()).url, release };
  }

  // Superseded by issue 39 item 5: a turn's final event now waits for the store's reply (a
  // response is `completed` only once stored, else it says `store: false`); see redis-faults.test.ts.
  it.skip("completes a turn before Redis confirms the stored response, and another replica chains on it", async () => {
    const first = await replica("ahead-a", true);
    const second = await replica("ahead-b", true);
    const client = await RawWsClient.connect(first.url);
    client.send({ type: "response.create", model: "synthetic", input: "Hi." });
    const final = await client.finalEvent(0, 5000);
    expect(final.type).toBe("response.completed");
    const id = (final.response as { id: string }).id;
    const next = await fetch(`${second.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "synthetic", input: "And?", previous_response_id: id }),
    });
    expect(next.status).toBe(200);
    first.release();
    second.release();
    client.socket.close();
  });

  it("holds the final event for the reply when it does not write ahead", async () => {
    const waits = await replica("waits-a", false);
    const client = await RawWsClient.connect(waits.url);
    client.send({ type: "response.create", model: "synthetic", input: "Hi." });
    await client.waitFor((event) => event.type === "response.output_text.done");
    await expect(client.finalEvent(0, 300)).rejects.toThrow();
    waits.release();
    expect((await client.finalEvent(0, 5000)).type).toBe("response.completed");
    client.socket.close();
  });
});
