// A response survives its replica with the embedded llama.cpp engine: two real `spark serve`
// replicas on the noise test model share a real redis-server; the one generating is killed with
// SIGKILL mid-stream and the other continues the answer natively, from the text so far as the
// assistant's open turn, not by running the request again. On greedy decoding the whole text is
// the one an uninterrupted run gives, and only the rest is generated (usage, log and /metrics).
// The same holds for a client's retry over HTTP: the same request body sent again to the survivor
// after the kill is answered with the response continued, not generated again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { RawWsClient, type ServerEvent } from "./support/raw-ws-client.ts";
import { deltaText as sseDeltaText, readSse } from "./support/sse-reader.ts";
import {
  createReplicaFleet,
  type ReplicaFleet,
  type ServeReplica,
} from "./support/serve-replicas.ts";

const KEY = "sk-failover-llama";
const auth = { authorization: `Bearer ${KEY}` };
// No max_output_tokens: the noise model never ends its turn, so both runs end where the context
// does, at the same position (the continuation's budget is exact there, not estimated).
const request = { model: "noise", input: "Tell me a long story.", temperature: 0 };
const redisMissing = redisMissingReason();
if (redisMissing !== undefined)
  console.warn(`Skipping the llama.cpp failover test: ${redisMissing}.`);

interface FinalResponse {
  id: string;
  status: string;
  output: Array<{ content: Array<{ text: string }> }>;
  usage: { output_tokens: number };
}

describe.skipIf(redisMissing !== undefined)("failover with the embedded engine", () => {
  let redis: RedisServer;
  let fleet: ReplicaFleet;
  let generating: ServeReplica;
  let survivor: ServeReplica;

  beforeAll(async () => {
    redis = await startRedisServer();
    const modelPath = await ensureTestModel();
    fleet = createReplicaFleet(
      `[serve]\napi_keys = ["${KEY}"]\nreplica_lease_ms = 1000\n\n` +
        `[models.noise]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\n` +
        `threads = 1\nsequences = 1\ncontext_size = 2048\n`,
    );
    const args = ["--store", redis.url, "--model", "noise"];
    [generating, survivor] = await Promise.all([fleet.start(args), fleet.start(args)]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.stopAll();
    await redis?.stop();
  });

  let uninterrupted: Promise<FinalResponse> | undefined;
  /** The answer an uninterrupted run gives (greedy: every run gives it). */
  const referenceOf = (): Promise<FinalResponse> => {
    uninterrupted ??= fetch(`${survivor.url}/v1/responses`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(request),
    }).then(async (response) => {
      expect(response.status).toBe(200);
      return (await response.json()) as FinalResponse;
    });
    return uninterrupted;
  };

  it("continues natively after SIGKILL: the uninterrupted greedy text, only the rest generated", async () => {
    const reference = await referenceOf();
    const referenceText = reference.output[0]?.content[0]?.text ?? "";
    expect(reference.usage.output_tokens).toBeGreaterThan(1000);

    const first = await RawWsClient.connect(generating.url, auth);
    first.send({ type: "response.create", ...request });
    await first.waitFor(
      (event) =>
        event.type === "response.output_text.delta" && deltaText(first.events).length > 200,
    );
    await generating.kill("SIGKILL");
    const before = [...first.events];
    const responseId = String((before[0]?.response as { id: string }).id);
    const lastSeen = Math.max(...before.map((event) => event.sequence_number ?? -1));
    // The dead replica was killed well before the end: most of the answer is still to come.
    expect(deltaText(before).length).toBeLessThan(referenceText.length / 2);

    const second = await RawWsClient.connect(survivor.url, auth);
    second.send({
      type: "response.resume",
      response_id: responseId,
      last_sequence_number: lastSeen,
    });
    const final = await second.finalEvent(0, 60_000);
    // Both runs end at the context's end: incomplete, for the same reason.
    expect(reference.status).toBe("incomplete");
    expect(final.type).toBe("response.incomplete");
    const all = [...before, ...second.events];
    const sequence = all.map((event) => event.sequence_number ?? -1);
    expect(sequence).toEqual(Array.from({ length: sequence.length }, (_, index) => index));
    expect(deltaText(all)).toBe(referenceText);
    const response = final.response as FinalResponse;
    expect(response.output[0]?.content[0]?.text).toBe(referenceText);
    // Generated here: the rest only (a re-run would count every token of the answer again).
    const sentBefore = deltaText(before).length;
    expect(response.usage.output_tokens).toBeLessThanOrEqual(
      reference.usage.output_tokens - sentBefore + 8,
    );
    expect(survivor.log).toContain(`${responseId} continued by the engine from the answer so far`);
    const metrics = await (await fetch(`${survivor.url}/metrics`, { headers: auth })).text();
    expect(metrics).toContain('spark_gateway_continued_responses_total{how="engine"} 1');
    first.socket.close();
    second.socket.close();
  }, 120_000);

  it("answers a client's SSE retry after SIGKILL with the response continued: the same text, only the rest generated", async () => {
    const reference = await referenceOf();
    const referenceText = reference.output[0]?.content[0]?.text ?? "";
    const args = ["--store", redis.url, "--model", "noise"];
    // A new replica to kill; the survivor of the case before answers the retry (the store is
    // shared, so a replica of its own would find the same there), and its count is read first.
    const dying = await fleet.start(args);
    const other = survivor;
    const continuedBefore = continuedByEngine(
      await (await fetch(`${other.url}/metrics`, { headers: auth })).text(),
    );
    const body = JSON.stringify({ ...request, stream: true });
    const post = (url: string): Promise<Response> =>
      fetch(`${url}/v1/responses`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body,
      });
    const first = readSse(await post(dying.url));
    await first.waitFor(() => sseDeltaText(first.events).length > 200, 60_000);
    await dying.kill("SIGKILL");
    const sentBefore = sseDeltaText(first.events).length;
    expect(sentBefore).toBeLessThan(referenceText.length / 2);
    const responseId = (first.events[0]?.response as { id: string }).id;

    const retry = readSse(await post(other.url));
    const final = await retry.waitFor((event) => event.type === "response.incomplete", 60_000);
    expect(sseDeltaText(retry.events)).toBe(referenceText);
    const response = final.response as FinalResponse;
    expect(response.id).toBe(responseId);
    expect(response.output[0]?.content[0]?.text).toBe(referenceText);
    expect(response.usage.output_tokens).toBeLessThanOrEqual(
      reference.usage.output_tokens - sentBefore + 8,
    );
    const metrics = await (await fetch(`${other.url}/metrics`, { headers: auth })).text();
    expect(metrics).toContain('spark_gateway_retried_requests_total{outcome="continued"} 1');
    expect(continuedByEngine(metrics)).toBe(continuedBefore + 1);
  }, 180_000);
});

/** spark_gateway_continued_responses_total{how="engine"}, 0 before the first. */
function continuedByEngine(metrics: string): number {
  const match = /^spark_gateway_continued_responses_total\{how="engine"\} (\d+)$/m.exec(metrics);
  return Number(match?.[1] ?? 0);
}

function deltaText(events: readonly ServerEvent[]): string {
  return events
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => String(event.delta))
    .join("");
}
