// Who may connect and how much: API keys on HTTP and on the WebSocket upgrade, the Origin
// allow-list, the non-loopback rule, per-key concurrency, connection lifetime, health and metrics.
import OpenAI from "openai";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { createGateway, modelsFromEngine, type ServeConfig } from "../../src/gateway/index.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

let harness: GatewayHarness | undefined;
const clients: RawWsClient[] = [];

async function start(
  config: Partial<ServeConfig> = {},
  tokensPerSecond = 5000,
  tokens = 40,
): Promise<GatewayHarness> {
  harness = await startGatewayHarness(createSyntheticEngine({ tokensPerSecond, tokens }), config);
  return harness;
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<RawWsClient> {
  const client = await RawWsClient.connect(url, headers);
  clients.push(client);
  return client;
}

/** The HTTP status a refused WebSocket handshake got. */
async function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/v1/responses`, { headers });
  return new Promise((resolve, reject) => {
    socket.on("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on("open", () => {
      socket.terminate();
      reject(new Error("the upgrade was accepted"));
    });
    socket.on("error", () => {});
  });
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await harness?.close();
  harness = undefined;
});

describe("gateway security and limits", () => {
  it("refuses to bind a non-loopback address without API keys, and allows it with keys", async () => {
    const engine = createSyntheticEngine();
    const open = createGateway({
      models: modelsFromEngine(engine),
      config: { host: "0.0.0.0", port: 0 },
    });
    await expect(open.listen()).rejects.toMatchObject({ code: "invalid_config" });
    const keyed = createGateway({
      models: modelsFromEngine(engine),
      config: { host: "0.0.0.0", port: 0, apiKeys: ["sk-test"] },
    });
    await expect(keyed.listen()).resolves.toMatchObject({
      url: expect.stringMatching(/^http:/) as unknown,
    });
    await keyed.close();
  });

  it("answers a missing or wrong bearer key with 401, on HTTP and on the upgrade", async () => {
    const { url, model } = await start({ apiKeys: ["sk-right"] });
    const wrong = new OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-wrong", maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toMatchObject({
      status: 401,
      code: "invalid_api_key",
    });
    const missing = await fetch(`${url}/v1/models`);
    expect(missing.status).toBe(401);
    expect(await upgradeStatus(url, { Authorization: "Bearer sk-wrong" })).toBe(401);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    const right = new OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-right", maxRetries: 0 });
    const models = await right.models.list();
    expect(models.data.map((entry) => entry.id)).toEqual([model]);
    await connect(url, { Authorization: "Bearer sk-right" });
  });

  it("refuses a browser Origin that is not allowed with 403, and accepts listed and same-host ones", async () => {
    const { url } = await start({ allowedOrigins: ["https://editor.example"] });
    expect(await upgradeStatus(url, { Origin: "https://evil.example" })).toBe(403);
    await connect(url, { Origin: "https://editor.example" });
    await connect(url, { Origin: url });
    await connect(url);
  });

  it("limits responses in flight per API key, across connections and HTTP", async () => {
    const { url, model } = await start(
      { apiKeys: ["sk-a", "sk-b"], maxConcurrencyPerKey: 1 },
      100,
      // Long enough that the first response is still running on a loaded machine; it is cancelled.
      100_000,
    );
    const first = await connect(url, { Authorization: "Bearer sk-a" });
    first.send({ type: "response.create", input: "Take your time." });
    await first.waitFor((event) => event.type === "response.output_text.delta");

    const second = await connect(url, { Authorization: "Bearer sk-a" });
    second.send({ type: "response.create", input: "Me too." });
    const error = await second.waitFor((event) => event.type === "error");
    expect(error.code).toBe("rate_limited");
    const overHttp = new OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-a", maxRetries: 0 });
    await expect(overHttp.responses.create({ model, input: "Hi." })).rejects.toMatchObject({
      status: 429,
    });

    const otherKey = await connect(url, { Authorization: "Bearer sk-b" });
    otherKey.send({ type: "response.create", input: "Other key.", max_output_tokens: 2 });
    expect((await otherKey.finalEvent()).type).toBe("response.incomplete");
    first.send({ type: "response.cancel" });
    await first.finalEvent();
  });

  it("closes a connection after its lifetime with 1001, once its response has ended", async () => {
    const { url } = await start({ connectionLifetimeSeconds: 0.3 }, 100);
    const client = await connect(url);
    client.send({ type: "response.create", input: "Long.", max_output_tokens: 40 });
    const final = await client.finalEvent();
    expect(final.type).toBe("response.completed");
    expect(await client.closed()).toBe(1001);
    expect(client.closeReason).toMatch(/lifetime/);
  });

  it("sends ping heartbeats", async () => {
    const { url } = await start({ heartbeatIntervalMs: 50 });
    const client = await connect(url);
    await new Promise<void>((resolve) => client.socket.once("ping", () => resolve()));
  });

  it("serves health, models and Prometheus metrics", async () => {
    const { url, model } = await start();
    const client = await connect(url);
    client.send({ type: "response.create", input: "Count." });
    await client.finalEvent();
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
    const models = (await (await fetch(`${url}/v1/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    expect(models.data[0]?.id).toBe(model);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    for (const name of [
      "spark_gateway_time_to_first_token_seconds_bucket",
      "spark_gateway_overhead_seconds_count",
      'spark_gateway_tokens_total{kind="output"}',
      "spark_gateway_active_streams 0",
      "spark_gateway_websocket_connections 1",
    ]) {
      expect(metrics).toContain(name);
    }
  });

  it("answers HTTP mistakes with OpenAI-shaped errors", async () => {
    const { url, model } = await start({ maxFrameBytes: 1024 });
    const post = (path: string, body: string) =>
      fetch(`${url}${path}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
    const invalidJson = await post("/v1/responses", "{nope");
    expect(invalidJson.status).toBe(400);
    expect(await invalidJson.json()).toMatchObject({ error: { code: "invalid_json" } });
    const tooLarge = await post(
      "/v1/responses",
      JSON.stringify({ model, input: "x".repeat(2048) }),
    );
    expect(tooLarge.status).toBe(413);
    const unknownModel = await post(
      "/v1/chat/completions",
      JSON.stringify({ model: "nope", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(unknownModel.status).toBe(404);
    expect(await unknownModel.json()).toMatchObject({
      error: { code: "model_not_found", param: "model" },
    });
    const badSchema = await post("/v1/chat/completions", JSON.stringify({ model, messages: [] }));
    expect(badSchema.status).toBe(400);
    expect(((await badSchema.json()) as { error: { param: string } }).error.param).toBe("messages");
    expect((await fetch(`${url}/v1/nothing`)).status).toBe(404);
  });
});
