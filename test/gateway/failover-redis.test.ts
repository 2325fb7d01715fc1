// A response in flight survives its replica: two real `spark serve` replicas share a real
// redis-server; the one generating a response is killed with SIGKILL mid-stream, the client resumes
// on the other with the last sequence_number it saw, and that replica replays what was logged and
// continues the generation itself. Every sequence number arrives exactly once, the text is the
// deltas' and the script's, and the response is stored whole for the next turn.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { RawWsClient, type ServerEvent } from "./support/raw-ws-client.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-failover";
const LEASE_MS = 1000;
const WORDS = Array.from({ length: 40 }, (_, index) => `word${index}`);
const LINE = WORDS.join(" ");
const auth = { authorization: `Bearer ${KEY}` };
const redisMissing = redisMissingReason();
if (redisMissing !== undefined) console.warn(`Skipping the Redis failover tests: ${redisMissing}.`);

describe.skipIf(redisMissing !== undefined)("a response in flight survives its replica", () => {
  let redis: RedisServer;
  let fleet: ReplicaFleet;
  let generating: ServeReplica;
  let survivor: ServeReplica;

  beforeAll(async () => {
    redis = await startRedisServer();
    fleet = createReplicaFleet(`[serve]\napi_keys = ["${KEY}"]\nreplica_lease_ms = ${LEASE_MS}\n`);
    const script = fleet.script("line", [
      { text: LINE, delayMs: 60 },
      { text: "After the failover." },
    ]);
    const args = ["--store", redis.url, "--model", `script:${script}`];
    [generating, survivor] = await Promise.all([fleet.start(args), fleet.start(args)]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.stopAll();
    await redis?.stop();
  });

  it("continues on another replica after SIGKILL: every sequence number once, the whole text", async () => {
    const first = await RawWsClient.connect(generating.url, auth);
    first.send({ type: "response.create", model: "script", input: "Count." });
    // Mid-stream: a dozen words in, most of the line still to come.
    await first.waitFor(
      (event) =>
        event.type === "response.output_text.delta" &&
        deltaText(first.events).split(" ").length > 12,
    );
    await generating.kill("SIGKILL");
    const killedAt = performance.now();
    const before = [...first.events];
    const responseId = String((before[0]?.response as { id: string }).id);
    const lastSeen = Math.max(...before.map((event) => event.sequence_number ?? -1));

    const second = await RawWsClient.connect(survivor.url, auth);
    second.send({
      type: "response.resume",
      response_id: responseId,
      last_sequence_number: lastSeen,
    });
    const final = await second.finalEvent(0, 20_000);
    const firstResumedDelta = second.events.findIndex(
      (event) => event.type === "response.output_text.delta",
    );
    expect(firstResumedDelta).toBeGreaterThanOrEqual(0);
    console.log(
      `failover: SIGKILL → final event ${Math.round(performance.now() - killedAt)} ms (lease ${LEASE_MS} ms)`,
    );

    const all = [...before, ...second.events];
    const sequence = all.map((event) => event.sequence_number ?? -1);
    expect(sequence).toEqual(Array.from({ length: sequence.length }, (_, index) => index));
    expect(final.type).toBe("response.completed");
    const response = final.response as {
      id: string;
      status: string;
      output: Array<{ content: Array<{ text: string }> }>;
    };
    expect(response.id).toBe(responseId);
    expect(deltaText(all)).toBe(LINE);
    expect(response.output[0]?.content[0]?.text).toBe(LINE);
    const done = all.find((event) => event.type === "response.output_text.done");
    expect(done?.text).toBe(LINE);

    // Stored whole by the replica that finished it: the chain goes on from it.
    const stored = await fetch(`${survivor.url}/v1/responses/${responseId}`, { headers: auth });
    expect(stored.status).toBe(200);
    const next = await fetch(`${survivor.url}/v1/responses`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ model: "script", input: "And?", previous_response_id: responseId }),
    });
    expect(next.status).toBe(200);
    first.socket.close();
    second.socket.close();
  }, 60_000);
});

function deltaText(events: readonly ServerEvent[]): string {
  return events
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => String(event.delta))
    .join("");
}
