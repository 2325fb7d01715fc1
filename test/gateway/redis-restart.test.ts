// Redis killed and restarted under load: two real `spark serve` replicas keep serving what needs no
// stored state, answer what does with a typed 503 (store_unavailable, retryable), crash nothing
// (a WebSocket response in flight across the outage completes), and chain again once Redis is back.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-outage";
const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
const redisMissing = redisMissingReason();
if (redisMissing !== undefined) console.warn(`Skipping the Redis restart test: ${redisMissing}.`);

interface Outcome {
  chained: boolean;
  status: number;
  code: string | undefined;
  id: string | undefined;
}

async function create(replica: ServeReplica, previous?: string): Promise<Outcome> {
  const response = await fetch(`${replica.url}/v1/responses`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      model: "script",
      input: "Go.",
      ...(previous === undefined ? {} : { previous_response_id: previous }),
    }),
  });
  const body = (await response.json()) as { id?: string; error?: { code?: string } };
  return {
    chained: previous !== undefined,
    status: response.status,
    code: body.error?.code,
    id: body.id,
  };
}

describe.skipIf(redisMissing !== undefined)("Redis killed and restarted under load", () => {
  let redis: RedisServer;
  let fleet: ReplicaFleet;
  let replicas: [ServeReplica, ServeReplica];

  beforeAll(async () => {
    redis = await startRedisServer();
    fleet = createReplicaFleet(
      `[serve]\napi_keys = ["${KEY}"]\nreplica_lease_ms = 1000\nmax_concurrency_per_key = 64\n`,
    );
    const lines = [
      { text: "a long answer that spans the outage of the store", delayMs: 250 },
      ...Array.from({ length: 400 }, () => ({ text: "short answer", delayMs: 5 })),
    ];
    const args = (name: string): string[] => [
      "--store",
      redis.url,
      "--model",
      `script:${fleet.script(name, lines)}`,
    ];
    replicas = [await fleet.start(args("a")), await fleet.start(args("b"))];
  }, 60_000);

  afterAll(async () => {
    await fleet?.stopAll();
    await redis?.stop();
  });

  it("answers typed 503s for chains while Redis is away, serves the rest, and recovers", async () => {
    const [a, b] = replicas;
    const socket = await RawWsClient.connect(a.url, { authorization: `Bearer ${KEY}` });
    socket.send({ type: "response.create", model: "script", input: "Long." });
    await socket.waitFor((event) => event.type === "response.output_text.delta");

    type Phase = "before" | "outage" | "after";
    // Read by the load loop while the test moves it on (hence the cast: no narrowing).
    let phase = "before" as Phase;
    const outcomes: Array<Outcome & { phase: Phase }> = [];
    let running = true;
    const load = async (worker: number): Promise<void> => {
      let previous: string | undefined;
      for (let index = 0; running; index += 1) {
        const replica = (index + worker) % 2 === 0 ? a : b;
        const startedIn = phase;
        const outcome = await create(replica, previous);
        outcomes.push({ ...outcome, phase: startedIn === phase ? phase : "outage" });
        previous = outcome.status === 200 ? outcome.id : undefined;
        await sleep(10);
      }
    };
    const workers = [0, 1, 2, 3].map((worker) => load(worker));
    await sleep(700);
    phase = "outage";
    await redis.kill();
    await sleep(1500);
    const recoveryStartedAt = performance.now();
    await redis.restart();
    phase = "after";
    // Recovered: a new chain started on one replica goes on on the other.
    let recovered = false;
    while (!recovered && performance.now() - recoveryStartedAt < 10_000) {
      const first = await create(a);
      const second = first.status === 200 ? await create(b, first.id) : undefined;
      recovered = second?.status === 200;
      if (!recovered) await sleep(100);
    }
    console.log(
      `store recovered ${Math.round(performance.now() - recoveryStartedAt)} ms after redis-server restarted`,
    );
    running = false;
    await Promise.all(workers);
    expect(recovered).toBe(true);

    const failures = outcomes.filter((outcome) => outcome.status !== 200);
    // Nothing but the typed, retryable 503 (or a chain whose previous response Redis lost).
    for (const failure of failures) {
      expect([503, 404]).toContain(failure.status);
      if (failure.status === 503) expect(failure.code).toBe("store_unavailable");
      else expect(failure.code).toBe("previous_response_not_found");
    }
    expect(failures.some((failure) => failure.code === "store_unavailable")).toBe(true);
    const servedInOutage = outcomes.filter(
      (outcome) => outcome.phase === "outage" && !outcome.chained && outcome.status === 200,
    );
    expect(servedInOutage.length).toBeGreaterThan(0);
    expect(
      outcomes.filter((outcome) => outcome.phase === "before" && outcome.status !== 200),
    ).toEqual([]);

    // The WebSocket response that ran across the outage completed, and no replica crashed.
    const final = await socket.finalEvent(0, 20_000);
    expect(final.type).toBe("response.completed");
    socket.socket.close();
    for (const replica of replicas) {
      const health = await fetch(`${replica.url}/healthz`);
      expect(health.status).toBe(200);
    }
    expect(a.log).toContain("unavailable");
  }, 60_000);
});
