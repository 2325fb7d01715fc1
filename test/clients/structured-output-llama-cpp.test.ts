// Structured output through a real gateway on loopback to the real embedded engine on the tiny
// self-written GGUF (random weights, so only the grammar makes the answer fit): the AI SDK's
// generateObject and streamObject over the Responses and the Chat Completions provider, the
// openai SDK's json_object, the format echoed and logged, and a schema the engine cannot enforce
// refused with a 400 before anything streams (a WebSocket error event on that transport).
import { createOpenAI } from "@ai-sdk/openai";
import { generateObject, streamObject } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { Engine } from "../../src/engines/engine.ts";
import { createGateway, modelsFromEngine, type Gateway } from "../../src/gateway/index.ts";
import { RawWsClient } from "../gateway/support/raw-ws-client.ts";
import { ensureTestModel } from "../support/test-model.ts";

/** Bounded strings: a noise model under a grammar ends a string only when it must. */
const weather = z.object({
  city: z.string().max(10),
  degrees: z.number().int(),
  sky: z.enum(["sunny", "cloudy", "rainy"]),
  windy: z.boolean(),
});

/**
 * multipleOf is kept by neither grammar (llama.cpp's, on the chat-format path, now enforces a
 * pattern, which this test used before).
 */
const unsupportedSchema = {
  type: "object",
  properties: { count: { type: "number", multipleOf: 5 } },
  required: ["count"],
  additionalProperties: false,
};

let engine: Engine;
let gateway: Gateway;
let url: string;
let model: string;
const log: string[] = [];

beforeAll(async () => {
  engine = await createLlamaCppEngine({
    modelPath: await ensureTestModel(),
    threads: 1,
    sequences: 2,
    contextSize: 2048,
  });
  model = (await engine.listModels())[0]?.id ?? "";
  gateway = createGateway({
    models: modelsFromEngine(engine),
    config: { host: "127.0.0.1", port: 0 },
    log: (line) => log.push(line),
  });
  url = (await gateway.listen()).url;
});
afterAll(async () => {
  await gateway?.close();
  await engine?.dispose();
});

const provider = () => createOpenAI({ baseURL: `${url}/v1`, apiKey: "unused" });
const client = () => new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
const prompt = "Describe the weather in Paris.";

describe("the AI SDK's generateObject and streamObject", () => {
  it.each(["responses", "chat"] as const)("generateObject over openai.%s()", async (api) => {
    const openai = provider();
    const { object } = await generateObject({
      model: api === "responses" ? openai.responses(model) : openai.chat(model),
      schema: weather,
      schemaName: `weather_${api}`,
      prompt,
      maxOutputTokens: 200,
    });
    // generateObject validated it against the zod schema already; this says so out loud.
    expect(weather.parse(object)).toEqual(object);
    expect(log.some((line) => line.includes(` format=json_schema:weather_${api} `))).toBe(true);
  });

  it.each(["responses", "chat"] as const)("streamObject over openai.%s()", async (api) => {
    const openai = provider();
    // A longer answer than the weather's (compact JSON of ~40 tokens can reach the client in one
    // batch from the native loop, i.e. one partial): a 150-character note spans several.
    const report = weather.extend({ note: z.string().min(150).max(160) });
    const result = streamObject({
      model: api === "responses" ? openai.responses(model) : openai.chat(model),
      schema: report,
      prompt,
      maxOutputTokens: 400,
    });
    let partials = 0;
    for await (const _partial of result.partialObjectStream) partials += 1;
    expect(partials).toBeGreaterThan(1);
    expect(report.parse(await result.object)).toBeDefined();
  });
});

describe("the openai SDK", () => {
  it("chat.completions with response_format json_object answers parseable JSON", async () => {
    const completion = await client().chat.completions.create({
      model,
      messages: [{ role: "user", content: "Reply with a JSON object." }],
      response_format: { type: "json_object" },
      max_tokens: 200,
    });
    const content = completion.choices[0]?.message.content ?? "";
    // The noise model ends an unbounded string only by chance: an answer cut at max_tokens is
    // the grammar's prefix of an object; a finished one parses to an object.
    if (completion.choices[0]?.finish_reason === "length") expect(content).toMatch(/^\{/);
    else {
      const parsed: unknown = JSON.parse(content);
      expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)).toBe(true);
    }
    expect(
      log.some((line) => / response chatcmpl-\w+ http .* format=json_object /.test(line)),
    ).toBe(true);
  });

  it("responses echoes the requested text.format, streamed and not", async () => {
    const format = {
      type: "json_schema" as const,
      name: "weather",
      strict: true,
      schema: z.toJSONSchema(weather, { target: "draft-7" }) as Record<string, unknown>,
    };
    const response = await client().responses.create({
      model,
      input: prompt,
      text: { format },
      max_output_tokens: 200,
    });
    expect(response.text?.format).toEqual(format);
    expect(weather.parse(JSON.parse(response.output_text))).toBeDefined();
    const stream = await client().responses.create({
      model,
      input: prompt,
      text: { format: { type: "json_object" } },
      max_output_tokens: 200,
      stream: true,
    });
    let text = "";
    let ended: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      // json_object bounds no string, and the noise model, sampling, ends one only by chance: an
      // answer may reach max_output_tokens and end incomplete, echoing the format all the same.
      if (event.type === "response.completed" || event.type === "response.incomplete") {
        ended = event.response;
      }
    }
    expect(ended?.text?.format).toEqual({ type: "json_object" });
    if (ended?.status === "completed") expect(typeof JSON.parse(text)).toBe("object");
    else expect(ended?.incomplete_details?.reason).toBe("max_output_tokens");
  });
});

describe("a schema the embedded engine cannot enforce", () => {
  const expectedMessage =
    /JSON schema "contact" .* cannot enforce: multipleOf (5 )?at #\/properties\/count/;

  it.each([false, true])(
    "is a 400 on both APIs before anything streams (stream: %s)",
    async (stream) => {
      const chat = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model,
          stream,
          messages: [{ role: "user", content: "Who?" }],
          response_format: {
            type: "json_schema",
            json_schema: { name: "contact", strict: true, schema: unsupportedSchema },
          },
        }),
      });
      expect(chat.status).toBe(400);
      const chatError = ((await chat.json()) as { error: { type: string; message: string } }).error;
      expect(chatError.type).toBe("invalid_request_error");
      expect(chatError.message).toMatch(expectedMessage);

      const responses = await fetch(`${url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model,
          stream,
          input: "Who?",
          text: { format: { type: "json_schema", name: "contact", schema: unsupportedSchema } },
        }),
      });
      expect(responses.status).toBe(400);
      const responsesError = ((await responses.json()) as { error: { message: string } }).error;
      expect(responsesError.message).toMatch(expectedMessage);
    },
  );

  it("is an error event on a WebSocket, which stays open", async () => {
    const socket = await RawWsClient.connect(url);
    try {
      socket.send({
        type: "response.create",
        model,
        input: "Who?",
        text: { format: { type: "json_schema", name: "contact", schema: unsupportedSchema } },
      });
      const error = await socket.waitFor((event) => event.type === "error");
      expect(error.code).toBe("invalid_request");
      expect(String(error.message)).toMatch(expectedMessage);
      expect(socket.events.some((event) => event.type === "response.created")).toBe(false);
    } finally {
      socket.socket.close();
      await socket.closed();
    }
  });

  it("an unknown format type is refused by name", async () => {
    const response = await fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model, input: "Hi", text: { format: { type: "grammar" } } }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("text.format.type");
  });
});
