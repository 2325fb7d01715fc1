// Spark's WebSocket extensions and connection rules, with a raw `ws` client: cancel, steer,
// resume after a drop, freeing the engine when a client goes away, one response at a time.
import { afterEach, describe, expect, it } from "vitest";
import {
  createSyntheticEngine,
  type SyntheticEngine,
} from "../../src/engines/synthetic/synthetic-engine.ts";
import {
  createGateway,
  modelsFromEngine,
  type GatewayModels,
  type ServeConfig,
} from "../../src/gateway/index.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { deltaText, RawWsClient, type ServerEvent } from "./support/raw-ws-client.ts";

type ResponseJson = {
  id: string;
  status: string;
  previous_response_id: string | null;
  incomplete_details: { reason: string } | null;
  output: Array<{ type: string; content?: Array<{ text: string }> }>;
  usage: { input_tokens_details: { cached_tokens: number } } | null;
};

let harness: GatewayHarness | undefined;
const clients: RawWsClient[] = [];

async function start(
  engine: SyntheticEngine,
  config: Partial<ServeConfig> = {},
): Promise<GatewayHarness> {
  harness = await startGatewayHarness(engine, config);
  return harness;
}

async function connect(url: string): Promise<RawWsClient> {
  const client = await RawWsClient.connect(url);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await harness?.close();
  harness = undefined;
});

function responseOf(event: ServerEvent): ResponseJson {
  return event.response as ResponseJson;
}

function outputText(response: ResponseJson): string {
  return response.output
    .map((item) => item.content?.map((part) => part.text).join("") ?? "")
    .join("");
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const slowEngine = () => createSyntheticEngine({ tokensPerSecond: 200, tokens: 2000 });
const deltas = (count: number) => (events: ServerEvent[]) =>
  events.filter((event) => event.type === "response.output_text.delta").length >= count;

describe("WebSocket control: cancel, steer, resume", () => {
  it("response.cancel stops now, frees the engine, and answers response.incomplete with the partial output", async () => {
    const engine = slowEngine();
    const { url } = await start(engine);
    const client = await connect(url);
    client.send({ type: "response.create", input: "Tell a long story." });
    await until(() => deltas(3)(client.events));
    client.send({ type: "response.cancel" });
    const final = await client.finalEvent();
    expect(final.type).toBe("response.incomplete");
    const response = responseOf(final);
    expect(response.incomplete_details?.reason).toBe("cancelled");
    expect(outputText(response)).toBe(deltaText(client.events));
    expect(outputText(response).length).toBeGreaterThan(0);
    await until(() => engine.activeStreams === 0, 1000);

    // The cancelled response is the base of the next turn.
    const from = client.events.length;
    client.send({
      type: "response.create",
      input: "Shorter, please.",
      previous_response_id: response.id,
      max_output_tokens: 3,
    });
    const next = responseOf(await client.finalEvent(from));
    expect(next.previous_response_id).toBe(response.id);
  });

  it("response.steer keeps the partial output and continues in a chained response that reuses the cache", async () => {
    const engine = slowEngine();
    const { url } = await start(engine);
    const client = await connect(url);
    client.send({
      type: "response.create",
      input: "Refactor the parser.",
      max_output_tokens: 1000,
    });
    await until(() => deltas(3)(client.events));
    client.send({ type: "response.steer", input: "Keep the public API unchanged." });
    const steered = await client.finalEvent();
    expect(steered.type).toBe("response.incomplete");
    const first = responseOf(steered);
    expect(first.incomplete_details?.reason).toBe("steered");
    const partial = outputText(first);

    const from = client.events.indexOf(steered) + 1;
    const created = await client.waitFor((event) => event.type === "response.created", from);
    expect(responseOf(created).previous_response_id).toBe(first.id);
    await until(() => deltas(2)(client.events.slice(from)));
    client.send({ type: "response.cancel" });
    const second = responseOf(await client.finalEvent(from));
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);

    const continued = engine.requests.at(-1);
    expect(continued?.messages.slice(-2)).toEqual([
      { role: "assistant", content: partial },
      { role: "user", content: "Keep the public API unchanged." },
    ]);
    // The chain carries no client key, so neither turn names one; the steered turn is kept with
    // the first by its chain's affinity key (the first response's id, never sent upstream).
    expect(engine.requests.at(-2)?.sessionKey).toBeUndefined();
    expect(engine.requests.at(-2)?.affinityKey).toBeUndefined();
    expect(continued?.sessionKey).toBeUndefined();
    expect(continued?.affinityKey).toBe(`anonymous/${first.id}`);
  });

  it("a reconnecting client resumes from its last sequence_number with no delta lost or repeated", async () => {
    const engine = createSyntheticEngine({ tokensPerSecond: 150, tokens: 60 });
    const { url } = await start(engine, { resumeGraceSeconds: 5 });
    const first = await connect(url);
    first.send({ type: "response.create", input: "Stream for a while." });
    await until(() => deltas(5)(first.events));
    first.socket.terminate();
    const seen = [...first.events];
    const responseId = responseOf(seen[0] as ServerEvent).id;
    const lastSeen = Math.max(...seen.map((event) => event.sequence_number ?? -1));
    // Generation goes on while nobody listens.
    await new Promise((resolve) => setTimeout(resolve, 100));

    const second = await connect(url);
    second.send({
      type: "response.resume",
      response_id: responseId,
      last_sequence_number: lastSeen,
    });
    const final = await second.finalEvent();
    expect(final.type).toBe("response.completed");
    expect(deltaText(seen) + deltaText(second.events)).toBe(outputText(responseOf(final)));
    const resumedSequence = second.events.map((event) => event.sequence_number ?? -1);
    expect(Math.min(...resumedSequence)).toBeGreaterThan(lastSeen);
    expect(resumedSequence).toEqual([...resumedSequence].sort((a, b) => a - b));
  });

  it("resuming an unknown response is an error the connection survives", async () => {
    const { url } = await start(createSyntheticEngine({ tokens: 4 }));
    const client = await connect(url);
    client.send({ type: "response.resume", response_id: "resp_unknown", last_sequence_number: 3 });
    const error = await client.waitFor((event) => event.type === "error");
    expect(error.code).toBe("response_not_resumable");
    client.send({ type: "response.create", input: "Still here?" });
    expect((await client.finalEvent()).type).toBe("response.completed");
  });

  it("a client that drops mid-stream frees the engine (no grace period)", async () => {
    const engine = slowEngine();
    const { url, gateway } = await start(engine, { resumeGraceSeconds: 0 });
    const client = await connect(url);
    client.send({ type: "response.create", input: "Go on and on." });
    await until(() => deltas(2)(client.events));
    expect(engine.activeStreams).toBe(1);
    client.socket.terminate();
    await until(() => engine.activeStreams === 0, 2000);
    expect(gateway.metrics.render()).toContain(
      'spark_gateway_responses_total{transport="ws",status="incomplete"} 1',
    );
  });

  it("a dropped response keeps generating for the grace period, then frees the engine", async () => {
    const engine = slowEngine();
    const { url } = await start(engine, { resumeGraceSeconds: 0.3 });
    const client = await connect(url);
    client.send({ type: "response.create", input: "Go on and on." });
    await until(() => deltas(2)(client.events));
    client.socket.terminate();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(engine.activeStreams).toBe(1);
    await until(() => engine.activeStreams === 0, 3000);
  });

  it("closing the gateway stops responses in flight and waits until the engine is free", async () => {
    const engine = slowEngine();
    const { url, gateway } = await start(engine, { resumeGraceSeconds: 30 });
    const client = await connect(url);
    client.send({ type: "response.create", input: "Go on and on." });
    await until(() => deltas(2)(client.events));
    await gateway.close();
    expect(engine.activeStreams).toBe(0);
    expect(await client.closed()).toBe(1001);
  });

  it("a cancel that arrives while the response is still being prepared stops it as soon as it starts", async () => {
    const engine = slowEngine();
    const models = modelsFromEngine(engine);
    const slowModels: GatewayModels = {
      list: () => models.list(),
      resolve: async (model) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return models.resolve(model);
      },
    };
    const gateway = createGateway({ models: slowModels, config: { host: "127.0.0.1", port: 0 } });
    const { url } = await gateway.listen();
    try {
      const client = await connect(url);
      client.send({ type: "response.create", input: "Slow to start." });
      client.send({ type: "response.cancel" });
      const final = await client.finalEvent();
      expect(final.type).toBe("response.incomplete");
      expect(responseOf(final).incomplete_details?.reason).toBe("cancelled");
      expect(client.events.some((event) => event.type === "error")).toBe(false);
    } finally {
      await gateway.close();
    }
  });

  it("a second response.create while one is in flight gets an error, and the first goes on", async () => {
    const { url } = await start(createSyntheticEngine({ tokensPerSecond: 500, tokens: 20 }));
    const client = await connect(url);
    client.send({ type: "response.create", input: "First." });
    client.send({ type: "response.create", input: "Second." });
    const error = await client.waitFor((event) => event.type === "error");
    expect(error.code).toBe("response_already_in_progress");
    expect((await client.finalEvent()).type).toBe("response.completed");
    expect(client.events.filter((event) => event.type === "response.created")).toHaveLength(1);
  });

  it("generate: false warms the conversation up; the next turn finds it cached", async () => {
    const engine = createSyntheticEngine({ tokens: 4 });
    const { url } = await start(engine);
    const client = await connect(url);
    client.send({
      type: "response.create",
      input: "Here is a large file to work on.",
      instructions: "Be terse.",
      generate: false,
    });
    const warm = responseOf(await client.finalEvent());
    expect(warm.status).toBe("completed");
    expect(warm.output).toEqual([]);
    // The engine is asked to prefill only (the embedded engine then generates nothing at all).
    expect(engine.requests.at(-1)?.prefillOnly).toBe(true);
    const from = client.events.length;
    client.send({
      type: "response.create",
      input: "Now summarise it.",
      instructions: "Be terse.",
      previous_response_id: warm.id,
    });
    const next = responseOf(await client.finalEvent(from));
    expect(next.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(outputText(next).length).toBeGreaterThan(0);
  });
});
