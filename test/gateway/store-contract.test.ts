// The shared-store contract every implementation passes: two replicas' views of one store (the
// in-machine memory store of --workers, and Redis on a real redis-server on loopback) agree on
// stored responses and their caps, per-key slots, and the logs of responses in flight with leases,
// takeover and its refusal to the replica that lost the response.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResponseObject } from "../../src/protocol/responses-events.ts";
import type {
  ContinuableTurn,
  GatewayStore,
  StoredResponse,
} from "../../src/gateway/store/gateway-store.ts";
import { MemoryReplicaStore } from "../../src/gateway/store/memory-replica-store.ts";
import { MemoryStoreCore } from "../../src/gateway/store/memory-store-core.ts";
import { openRedisGatewayStore } from "../../src/gateway/store/redis-gateway-store.ts";
import {
  answerStoreCall,
  WorkersGatewayStore,
  type StoreCall,
} from "../../src/gateway/store/workers-store.ts";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";

const LEASE_MS = 300;
const LIMITS = { maxEntries: 3, maxBytes: 1 << 20, ttlMs: 60_000 };

interface StorePair {
  a: GatewayStore;
  b: GatewayStore;
  close: () => Promise<void>;
}

type PairFactory = (limits?: typeof LIMITS) => Promise<StorePair>;

const redisMissing = redisMissingReason();
if (redisMissing !== undefined) console.warn(`Skipping the Redis store contract: ${redisMissing}.`);

function stored(id: string, owner: string, itemId = `msg_${id}`): StoredResponse {
  const response = {
    id,
    object: "response",
    status: "completed",
    output: [
      {
        type: "message",
        id: itemId,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: `text of ${id}`, annotations: [], logprobs: [] }],
      },
    ],
  } as unknown as ResponseObject;
  return {
    id,
    response,
    messages: [{ role: "user", content: id }],
    sessionKey: id,
    ownerKey: owner,
  };
}

const turn = { requestedModel: "m", sessionKey: "s" } as unknown as ContinuableTurn;
const sequenceNumbers = (logged: readonly string[] | undefined): number[] =>
  (logged ?? []).map((event) => (JSON.parse(event) as { sequence_number: number }).sequence_number);
const events = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, index) =>
    JSON.stringify({ type: "response.output_text.delta", sequence_number: from + index }),
  );

/** Each case opens its own pair (its own memory core, its own Redis namespace) and mostly waits
 * for leases and expiries: the cases, and the implementations, run at once. */
function runStoreContract(name: string, createPair: PairFactory, skip?: string): void {
  describe.skipIf(skip !== undefined).concurrent(`shared store contract: ${name}`, () => {
    it("serves a response stored by one replica to the other, to its owner only", async () => {
      const { a, b, close } = await createPair();
      await a.putResponse(stored("resp_1", "tenant-a"));
      expect((await b.getResponse("resp_1", "tenant-a"))?.messages).toEqual([
        { role: "user", content: "resp_1" },
      ]);
      expect(await b.getResponse("resp_1", "tenant-b")).toBeUndefined();
      expect(await b.getResponse("resp_unknown", "tenant-a")).toBeUndefined();
      const items = await b.findItems(["msg_resp_1", "msg_unknown"], "tenant-a");
      expect([...items.keys()]).toEqual(["msg_resp_1"]);
      expect((await b.findItems(["msg_resp_1"], "tenant-b")).size).toBe(0);
      await close();
    });

    it("has a stored response once putResponse returns when it writes ahead, on either replica", async () => {
      const { a, b, close } = await createPair();
      // Large enough to take more than one read of Redis's socket.
      const large = {
        ...stored("resp_large", "tenant-a"),
        messages: [] as StoredResponse["messages"],
      };
      large.messages = [{ role: "user", content: "x".repeat(200_000) }];
      const putting = a.putResponse(large);
      // A store that does not write ahead has it once the promise resolves (the caller waits).
      if (a.writesAhead !== true) await putting;
      const [same, other] = await Promise.all([
        a.getResponse("resp_large", "tenant-a"),
        b.getResponse("resp_large", "tenant-a"),
      ]);
      expect(same?.messages[0]?.content).toHaveLength(200_000);
      expect(other?.messages[0]?.content).toHaveLength(200_000);
      await putting;
      await close();
    });

    // Redis reads write nothing (they must work at maxmemory), so the oldest stored goes first there;
    // no read between the puts keeps every store to the same order.
    it("evicts the oldest response past the entry cap (with its items), and expired ones", async () => {
      const { a, b, close } = await createPair({ ...LIMITS, maxEntries: 2 });
      await a.putResponse(stored("resp_a", "t"));
      await a.putResponse(stored("resp_b", "t"));
      await b.putResponse(stored("resp_c", "t"));
      expect(await a.getResponse("resp_a", "t")).toBeUndefined();
      expect(await a.getResponse("resp_b", "t")).toBeDefined();
      expect((await a.findItems(["msg_resp_a"], "t")).size).toBe(0);
      await close();
      const short = await createPair({ ...LIMITS, ttlMs: 150 });
      await short.a.putResponse(stored("resp_old", "t"));
      await sleep(300);
      expect(await short.b.getResponse("resp_old", "t")).toBeUndefined();
      await short.close();
    });

    it("counts slots across replicas, and frees a dead replica's slots after its lease", async () => {
      const { a, b, close } = await createPair();
      await a.heartbeat();
      await b.heartbeat();
      const first = await a.acquireSlot("tenant", 2);
      const second = await b.acquireSlot("tenant", 2);
      expect(first).toBeDefined();
      expect(second).toBeDefined();
      expect(await a.acquireSlot("tenant", 2)).toBeUndefined();
      expect(await b.acquireSlot("other-tenant", 2)).toBeDefined();
      await b.releaseSlot("tenant", second ?? "");
      expect(await a.acquireSlot("tenant", 2)).toBeDefined();
      // a stops renewing: its two slots lapse with its lease, b's renewals keep b alive.
      for (let beat = 0; beat < 4; beat += 1) {
        await b.heartbeat();
        await sleep(LEASE_MS / 2);
      }
      expect(await b.acquireSlot("tenant", 2)).toBeDefined();
      expect(await b.acquireSlot("tenant", 2)).toBeDefined();
      expect(await b.acquireSlot("tenant", 2)).toBeUndefined();
      await close();
    });

    it("logs a response in flight; another replica reads it, and takes it over once its replica's lease lapsed", async () => {
      const { a, b, close } = await createPair();
      await a.heartbeat();
      await b.heartbeat();
      const first = { id: "resp_live", owner: "t", turn, events: events(0, 3), done: false };
      expect(await a.appendLive([first])).toEqual(["ok"]);
      expect(await a.appendLive([{ ...first, turn: undefined, events: events(3, 2) }])).toEqual([
        "ok",
      ]);
      const seen = await b.readLive("resp_live", "t", 1);
      expect(seen?.replica).toBe(a.replicaId);
      expect(seen?.replicaAlive).toBe(true);
      expect(seen?.firstSequenceNumber).toBe(2);
      expect(sequenceNumbers(seen?.events)).toEqual([2, 3, 4]);
      expect(seen?.turn).toEqual(turn);
      expect(await b.readLive("resp_live", "someone-else", -1)).toBeUndefined();
      expect(await b.claimLive("resp_live", "t")).toBe("alive");
      expect(await b.claimLive("resp_live", "someone-else")).toBe("missing");

      await sleep(LEASE_MS + 150);
      await b.heartbeat();
      expect((await b.readLive("resp_live", "t", 4))?.replicaAlive).toBe(false);
      expect(await b.claimLive("resp_live", "t")).toBe("claimed");
      // The replica that lost it is told to stop; the one that took it appends after its events.
      expect(await a.appendLive([{ ...first, turn: undefined, events: events(5, 1) }])).toEqual([
        "superseded",
      ]);
      expect(
        await b.appendLive([{ ...first, turn: undefined, events: events(5, 2), done: true }]),
      ).toEqual(["ok"]);
      const after = await a.readLive("resp_live", "t", 4);
      expect(after?.replica).toBe(b.replicaId);
      expect(after?.done).toBe(true);
      expect(sequenceNumbers(after?.events)).toEqual([5, 6]);
      expect(await a.claimLive("resp_live", "t")).toBe("done");
      // A log that is not there (the store restarted) is lost, not superseded.
      expect(
        await a.appendLive([{ ...first, id: "resp_gone", turn: undefined, events: events(0, 1) }]),
      ).toEqual(["lost"]);
      await close();
    });

    it("finds a logged response by its request's fingerprint, for its tenant only", async () => {
      const { a, b, close } = await createPair();
      await a.heartbeat();
      const first = { id: "resp_fp", owner: "t", turn, request: "fp-1", events: events(0, 2) };
      expect(await a.appendLive([{ ...first, done: false }])).toEqual(["ok"]);
      expect(await b.findRequest("fp-1", "t")).toBe("resp_fp");
      expect(await b.findRequest("fp-1", "someone-else")).toBeUndefined();
      expect(await b.findRequest("fp-2", "t")).toBeUndefined();
      // Later batches and the end keep it findable while the log is kept.
      expect(
        await a.appendLive([
          { ...first, turn: undefined, request: undefined, events: events(2, 1), done: true },
        ]),
      ).toEqual(["ok"]);
      expect(await a.findRequest("fp-1", "t")).toBe("resp_fp");
      await close();
    });
  });
}

runStoreContract("in-machine memory (--workers)", async (limits = LIMITS) => {
  const core = new MemoryStoreCore({ responses: limits, leaseMs: LEASE_MS, liveGraceMs: 5000 });
  return {
    a: new MemoryReplicaStore(core, "replica-a", LEASE_MS),
    b: new MemoryReplicaStore(core, "replica-b", LEASE_MS),
    close: async () => {},
  };
});

runStoreContract("workers over IPC (JSON, as node:cluster sends it)", async (limits = LIMITS) => {
  const core = new MemoryStoreCore({ responses: limits, leaseMs: LEASE_MS, liveGraceMs: 5000 });
  const worker = (replica: string): WorkersGatewayStore => {
    let receive: (message: unknown) => void = () => {};
    const channel = {
      send: (message: StoreCall) => {
        const reply = answerStoreCall(core, JSON.parse(JSON.stringify(message)) as StoreCall);
        setImmediate(() => receive(JSON.parse(JSON.stringify(reply))));
      },
      onMessage: (handler: (message: unknown) => void) => {
        receive = handler;
      },
    };
    return new WorkersGatewayStore(channel, replica, LEASE_MS);
  };
  return { a: worker("worker-a"), b: worker("worker-b"), close: async () => {} };
});

let redis: RedisServer | undefined;
let namespace = 0;
beforeAll(async () => {
  if (redisMissing === undefined) redis = await startRedisServer();
});
afterAll(async () => redis?.stop());

runStoreContract(
  "Redis",
  async (limits = LIMITS) => {
    const url = redis?.url ?? "";
    // Each case in its own namespace, as two services sharing one Redis would be.
    const options = {
      url,
      responses: limits,
      leaseMs: LEASE_MS,
      liveGraceMs: 5000,
      namespace: `contract-${namespace++}`,
    };
    const a = await openRedisGatewayStore({ ...options, replicaId: "replica-a" });
    const b = await openRedisGatewayStore({ ...options, replicaId: "replica-b" });
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
  },
  redisMissing,
);
