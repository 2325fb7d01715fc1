// A turn's final event waits for Redis's reply to the stored response, even from a store that
// writes ahead (issue 39, item 5): a response is `completed` only once stored, and one the store
// refused says `store: false` rather than promising a chain that would 404. Two gateways share a
// real redis-server; the first one's store holds back (or fails) every confirmation of a stored
// response.
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

/** The store, with each stored response's confirmation held until `release` is called, or
 * failed when `fail` is set. */
function holdingConfirmations(
  store: RedisGatewayStore,
  fail: boolean,
): {
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
          return gate.then(async () => {
            await confirmed;
            if (fail) throw new Error("store refused the response (test)");
          });
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
    fail = false,
  ): Promise<{ url: string; release: () => void }> {
    const redisStore = await openRedisGatewayStore({
      url: redis.url,
      replicaId: name,
      responses: { maxEntries: 100, maxBytes: 1 << 20, ttlMs: 60_000 },
      leaseMs: 3000,
      liveGraceMs: 5000,
      writeAhead,
    });
    const { store, release } = holdingConfirmations(redisStore, fail);
    const engine = createSyntheticEngine({ tokensPerSecond: Infinity, tokens: 8 });
    const gateway = createGateway({
      models: modelsFromEngine(engine),
      config: { host: "127.0.0.1", port: 0 },
      store,
    });
    opened.push({ gateway, store });
    return { url: (await gateway.listen()).url, release };
  }

  it("holds the final event until Redis confirms even when writing ahead; another replica then chains on it", async () => {
    const first = await replica("ahead-a", true);
    const second = await replica("ahead-b", true);
    second.release();
    const client = await RawWsClient.connect(first.url);
    client.send({ type: "response.create", model: "synthetic", input: "Hi." });
    await client.waitFor((event) => event.type === "response.output_text.done");
    // Written ahead, but not confirmed: no `completed` yet.
    await expect(client.finalEvent(0, 300)).rejects.toThrow();
    first.release();
    const final = await client.finalEvent(0, 5000);
    expect(final.type).toBe("response.completed");
    expect((final.response as { store?: boolean }).store).not.toBe(false);
    const id = (final.response as { id: string }).id;
    const next = await fetch(`${second.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "synthetic", input: "And?", previous_response_id: id }),
    });
    expect(next.status).toBe(200);
    client.socket.close();
  });

  it("a put the store fails answers store: false instead of a completed response that would 404", async () => {
    const failing = await replica("fails-a", true, true);
    failing.release();
    const client = await RawWsClient.connect(failing.url);
    client.send({ type: "response.create", model: "synthetic", input: "Hi." });
    const final = await client.finalEvent(0, 5000);
    expect((final.response as { store?: boolean }).store).toBe(false);
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
