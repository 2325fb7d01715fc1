// Structured output through the OpenAI-compatible engine: the upstream enforces the format, so
// the engine passes it on in each API's shape, checked where it lands. Chat Completions: the body
// a loopback server received (a client's request through Spark's gateway to it, too). Responses
// over HTTP and over WebSocket: Spark's own gateway as the upstream, over the script engine,
// which records the format its gateway parsed and replays the JSON a model would have written.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest, OutputFormat } from "../../src/engines/engine.ts";
import { createOpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { createScriptEngine, type ScriptEngine } from "../../src/engines/script/script-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";
import { engineFor } from "./engine-for-replay.ts";
import { ReplayServer } from "./replay-server.ts";

const schema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};
const jsonSchemaFormat: OutputFormat = {
  type: "json_schema",
  name: "place",
  strict: true,
  description: "Where it is.",
  schema,
};
const answer = '{"city":"Paris"}';

/** A Chat Completions stream whose content is the JSON answer, as an upstream sends it. */
const chatStream = [
  { choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
  { choices: [{ index: 0, delta: { content: answer }, finish_reason: null }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
]
  .map((chunk) =>
    JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "m", ...chunk }),
  )
  .map((json) => `data: ${json}\n\n`)
  .join("")
  .concat("data: [DONE]\n\n");

const ask = (outputFormat: OutputFormat): EngineRequest => ({
  messages: [{ role: "user", content: "Where?" }],
  outputFormat,
});

describe("Chat Completions upstream", () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await ReplayServer.start();
    server.respondWith({ body: chatStream });
  });
  afterAll(async () => server.close());

  const sentFormat = (): unknown =>
    (JSON.parse(server.chatRequests().at(-1)?.body ?? "{}") as { response_format?: unknown })
      .response_format;

  it("sends response_format: json_schema with name, schema, strict and description", async () => {
    const engine = engineFor(server.baseUrl);
    const result = await collectStream(engine.stream(ask(jsonSchemaFormat)));
    await engine.dispose();
    expect(result.text).toBe(answer);
    expect(sentFormat()).toEqual({
      type: "json_schema",
      json_schema: { name: "place", schema, strict: true, description: "Where it is." },
    });
  });

  it("sends json_object as it is, and nothing for free text", async () => {
    const engine = engineFor(server.baseUrl);
    await collectStream(engine.stream(ask({ type: "json_object" })));
    expect(sentFormat()).toEqual({ type: "json_object" });
    await collectStream(engine.stream({ messages: [{ role: "user", content: "Hi" }] }));
    expect(sentFormat()).toBeUndefined();
    await engine.dispose();
  });

  it("a client's response_format reaches the upstream through Spark's gateway", async () => {
    const harness = await startGatewayHarness(engineFor(server.baseUrl));
    try {
      const client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
      const completion = await client.chat.completions.create({
        model: harness.model,
        messages: [{ role: "user", content: "Where?" }],
        response_format: { type: "json_schema", json_schema: { name: "place", schema } },
      });
      expect(completion.choices[0]?.message.content).toBe(answer);
      expect(sentFormat()).toEqual({ type: "json_schema", json_schema: { name: "place", schema } });
    } finally {
      await harness.close();
      await harness.engine.dispose();
    }
  });
});

describe.each(["http", "websocket"] as const)("Responses upstream over %s", (transport) => {
  let upstream: GatewayHarness;
  let script: ScriptEngine;
  beforeAll(async () => {
    script = await createScriptEngine({ turns: [{ text: answer }, { text: "{}" }] });
    upstream = await startGatewayHarness(script);
  });
  afterAll(async () => upstream.close());

  const engine = () =>
    createOpenAICompatibleEngine({
      preset: "custom",
      api: "responses",
      ...(transport === "websocket" ? { transport: "websocket" as const } : {}),
      baseUrl: `${upstream.url}/v1`,
      model: upstream.model,
      warmUp: false,
    });

  it("sends text.format in Responses' shape; the upstream parses the same format", async () => {
    const responsesEngine = engine();
    try {
      const first = await collectStream(responsesEngine.stream(ask(jsonSchemaFormat)));
      expect(first.error).toBeUndefined();
      expect(first.text).toBe(answer);
      const second = await collectStream(responsesEngine.stream(ask({ type: "json_object" })));
      expect(second.text).toBe("{}");
    } finally {
      await responsesEngine.dispose();
    }
    expect(script.requests.map((request) => request.outputFormat)).toEqual([
      jsonSchemaFormat,
      { type: "json_object" },
    ]);
  });
});
