// `spark serve --workers 2` as a user runs it, without Redis: the primary holds the store and the
// workers share it over IPC on one port. Chains go on on whichever worker a connection lands on,
// and a worker killed with SIGKILL mid-stream is replaced while its response is resumed and
// continued by another worker, with no gap or repeat in the sequence numbers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawWsClient, type ServerEvent } from "./support/raw-ws-client.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-workers";
const auth = { authorization: `Bearer ${KEY}` };
const LINE = Array.from({ length: 30 }, (_, index) => `part${index}`).join(" ");

describe("spark serve --workers 2 (the in-machine store)", () => {
  let fleet: ReplicaFleet;
  let serve: ServeReplica;

  beforeAll(async () => {
    fleet = createReplicaFleet(`[serve]\napi_keys = ["${KEY}"]\n`);
    // Every turn the same paced line: a worker's script goes on line by line, whichever turns
    // the cluster hands it, and a continuation plays the rest of its next line.
    const script = fleet.script(
      "workers",
      Array.from({ length: 40 }, () => ({ text: LINE, delayMs: 30 })),
    );
    serve = await fleet.start(["--workers", "2", "--model", `script:${script}`]);
  }, 120_000);

  afterAll(async () => fleet?.stopAll());

  it("goes on with a chain on whichever worker a new connection lands on", async () => {
    const replicas = new Set<string>();
    let previous: string | undefined;
    for (let turn = 0; turn < 4; turn += 1) {
      const response = await fetch(`${serve.url}/v1/responses`, {
        method: "POST",
        // A new connection per turn: the cluster hands connections to the workers in turn.
        headers: { ...auth, "content-type": "application/json", connection: "close" },
        body: JSON.stringify({
          model: "script",
          input: `Turn ${turn}.`,
          // The chain is what this case follows, not the paced line: two words of it.
          max_output_tokens: 2,
          ...(previous === undefined ? {} : { previous_response_id: previous }),
        }),
      });
      expect(response.status).toBe(200);
      replicas.add(response.headers.get("x-spark-replica") ?? "");
      const body = (await response.json()) as { id: string; previous_response_id: string | null };
      expect(body.previous_response_id).toBe(previous ?? null);
      previous = body.id;
    }
    expect(replicas.size).toBe(2);
  }, 60_000);

  it("resumes a response whose worker was killed on the worker that is left", async () => {
    const first = await RawWsClient.connect(serve.url, auth);
    const replica = String(first.upgradeHeaders["x-spark-replica"]);
    const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(replica)?.[1]);
    expect(pid).toBeGreaterThan(0);
    first.send({ type: "response.create", model: "script", input: "Count." });
    await first.waitFor(
      (event) => event.type === "response.output_text.delta" && (event.sequence_number ?? 0) > 8,
    );
    process.kill(pid, "SIGKILL");
    const before = [...first.events];
    const responseId = String((before[0]?.response as { id: string }).id);
    const lastSeen = Math.max(...before.map((event) => event.sequence_number ?? -1));
    // The primary ends the dead worker's lease at once; the connection lands on either worker.
    const second = await RawWsClient.connect(serve.url, auth);
    expect(second.upgradeHeaders["x-spark-replica"]).not.toBe(replica);
    second.send({
      type: "response.resume",
      response_id: responseId,
      last_sequence_number: lastSeen,
    });
    const final = await second.finalEvent(0, 20_000);
    expect(final.type).toBe("response.completed");
    const all = [...before, ...second.events];
    expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, index) => index));
    expect(deltaText(all)).toBe(LINE);
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
