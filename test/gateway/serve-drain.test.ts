// A rolling restart loses no stream: two real `spark serve` replicas share a real redis-server;
// the one serving is sent SIGTERM while a WebSocket response and an SSE response stream. During
// the drain /healthz stays 200 and /readyz answers 503; new work gets a retryable 503 with
// Retry-After. At the grace period's end the WebSocket response is left exactly as a killed
// replica leaves it (no `incomplete`), so `response.resume` on the other replica continues it to
// `completed` with every sequence number once; the SSE stream ends with a retryable
// `response.failed`, and the same request sent again (a client's retry) is that response,
// continued on the other replica; the drained replica exits 0.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { RawWsClient, type ServerEvent } from "./support/raw-ws-client.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-drain";
const GRACE_SECONDS = 2;
const WORDS = Array.from({ length: 80 }, (_, index) => `word${index}`);
const LINE = WORDS.join(" ");
const auth = { authorization: `Bearer ${KEY}` };
const redisMissing = redisMissingReason();

describe.skipIf(redisMissing !== undefined)("SIGTERM drains a replica", () => {
  let redis: RedisServer;
  let fleet: ReplicaFleet;
  let draining: ServeReplica;
  let survivor: ServeReplica;

  beforeAll(async () => {
    redis = await startRedisServer();
    fleet = createReplicaFleet(
      `[serve]\napi_keys = ["${KEY}"]\nreplica_lease_ms = 1000\ndrain_grace_seconds = ${GRACE_SECONDS}\n`,
    );
    // 80 words at 60 ms: 4.8 s, longer than the grace period. Short turns finish within it.
    const script = fleet.script("drain", [
      { text: LINE, delayMs: 60 },
      { text: LINE, delayMs: 60 },
      { text: "short one that ends within the grace period", delayMs: 150 },
    ]);
    const args = ["--store", redis.url, "--model", `script:${script}`];
    [draining, survivor] = await Promise.all([fleet.start(args), fleet.start(args)]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.stopAll();
    await redis?.stop();
  });

  it("hands a WebSocket response over (resumed and continued elsewhere), fails SSE retryably, refuses new work, exits 0", async () => {
    const first = await RawWsClient.connect(draining.url, auth);
    first.send({ type: "response.create", model: "script", input: "Count." });
    await first.waitFor((event) => event.type === "response.output_text.delta");
    // Streaming before the next request starts: the script hands out its turns in order.
    const sseBody = JSON.stringify({ model: "script", input: "Count too.", stream: true });
    const sseResponse = await fetch(`${draining.url}/v1/responses`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: sseBody,
    });
    const sseReader = sseResponse.body!.getReader();
    let sseText = new TextDecoder().decode((await sseReader.read()).value);
    const sse = (async () => {
      for (;;) {
        const { done, value } = await sseReader.read();
        if (done) return sseText;
        sseText += new TextDecoder().decode(value);
      }
    })();
    const shortClient = await RawWsClient.connect(draining.url, auth);
    shortClient.send({ type: "response.create", model: "script", input: "Short." });
    await shortClient
      .waitFor((event) => event.type === "response.output_text.delta")
      .catch((error: unknown) => {
        throw new Error(`${String(error)}\n${draining.log}`);
      });
    const short = shortClient.finalEvent(0, 10_000).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\n${JSON.stringify(shortClient.events.slice(-3))}\n${draining.log}`,
      );
    });
    process.kill(draining.pid, "SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Live but not ready, and new work is refused in a way clients and balancers retry.
    const health = await fetch(`${draining.url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${draining.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "unready", reasons: ["draining"] });
    const refused = await fetch(`${draining.url}/v1/responses`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ model: "script", input: "New work." }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "server_shutting_down",
    );

    // What was in flight and short finished within the grace period.
    expect((await short).type).toBe("response.completed");

    // The long one: the socket closes (1001) without a final event, and nothing `incomplete`.
    expect(await first.closed(GRACE_SECONDS * 1000 + 5000)).toBe(1001);
    expect(first.events.some((event) => event.type.startsWith("response.incomplete"))).toBe(false);
    expect(first.events.some((event) => event.type === "response.completed")).toBe(false);
    expect(await draining.exited).toBe(0);

    // SSE has no resume: its stream ends with a failure a client's retry logic retries, and the
    // retry is the same response, continued elsewhere.
    sseText = await sse;
    expect(sseText).toContain("event: response.failed");
    expect(sseText).toContain('"spark_code":"engine_busy"');
    expect(sseText).toContain('"retry_after":1');
    const sseId = /"id":"(resp_\w+)"/.exec(sseText)?.[1];

    // Both continue on the survivor at once, each from where the drain left it: the SSE retry and
    // the WebSocket's resume.
    const retriedText = fetch(`${survivor.url}/v1/responses`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: sseBody,
    }).then((retried) => retried.text());
    const before = [...first.events];
    const responseId = String((before[0]?.response as { id: string }).id);
    const lastSeen = Math.max(...before.map((event) => event.sequence_number ?? -1));
    const second = await RawWsClient.connect(survivor.url, auth);
    second.send({
      type: "response.resume",
      response_id: responseId,
      last_sequence_number: lastSeen,
    });

    expect(await retriedText).toContain("event: response.completed");
    const retriedEvents = (await retriedText)
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as ServerEvent);
    expect(deltaText(retriedEvents)).toBe(LINE);
    expect((retriedEvents.at(-1)?.response as { id: string }).id).toBe(sseId);

    const final = await second.finalEvent(0, 20_000);
    expect(final.type).toBe("response.completed");
    const all = [...before, ...second.events];
    const sequence = all.map((event) => event.sequence_number ?? -1);
    expect(sequence).toEqual(Array.from({ length: sequence.length }, (_, index) => index));
    expect(deltaText(all)).toBe(LINE);
    expect(draining.log).toMatch(/drained: 1 finished, 2 handed over to other replicas, 0 stopped/);
    second.close();
  }, 60_000);
});

function deltaText(events: readonly ServerEvent[]): string {
  return events
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => String(event.delta))
    .join("");
}
