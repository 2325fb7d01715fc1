// What goes over the wire: messages, tools, sampling and the optional fields each preset accepts,
// checked on the request body a real loopback server received.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest } from "../../src/engines/engine.ts";
import { engineFor } from "./engine-for-replay.ts";
import { ReplayServer } from "./replay-server.ts";

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
  server.respondWith({ fixture: "openai-text.sse" });
});
afterAll(async () => {
  await server.close();
});

const request: EngineRequest = {
  messages: [
    { role: "system", content: "You edit code." },
    { role: "user", content: "Read the index." },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"index.ts"}' }],
    },
    { role: "tool", toolCallId: "call_1", name: "read_file", content: "export {}" },
  ],
  tools: [
    {
      name: "read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    },
  ],
  sampling: { temperature: 0.2, topP: 0.9, maxOutputTokens: 64, stop: ["\n\n"], seed: 7 },
  prediction: "export {}",
};

async function sentBody(
  overrides: Parameters<typeof engineFor>[1],
): Promise<{ body: Record<string, unknown>; headers: Record<string, unknown> }> {
  const engine = engineFor(server.baseUrl, overrides);
  const result = await collectStream(engine.stream(request));
  await engine.dispose();
  expect(result.error).toBeUndefined();
  const recorded = server.chatRequests().at(-1);
  return {
    body: JSON.parse(recorded?.body ?? "{}") as Record<string, unknown>,
    headers: recorded?.headers ?? {},
  };
}

describe("request mapping", () => {
  it("openai: max_completion_tokens, prediction, usage in the stream, bearer key", async () => {
    const { body, headers } = await sentBody({
      preset: "openai",
      model: "gpt-4o-mini",
      env: { OPENAI_API_KEY: "sk-openai" },
    });
    expect(headers.authorization).toBe("Bearer sk-openai");
    expect(headers.accept).toBe("text/event-stream");
    expect(body).toEqual({
      model: "gpt-4o-mini",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You edit code." },
        { role: "user", content: "Read the index." },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "read_file", arguments: '{"path":"index.ts"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "export {}" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "read_file",
            description: "Read a file",
            parameters: { type: "object", properties: { path: { type: "string" } } },
          },
        },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 64,
      stop: ["\n\n"],
      seed: 7,
      prediction: { type: "content", content: "export {}" },
    });
  });

  it("vllm: max_tokens, no prediction, no key", async () => {
    const { body, headers } = await sentBody({
      preset: "vllm",
      model: "Qwen/Qwen2.5-Coder-7B-Instruct",
    });
    expect(headers.authorization).toBeUndefined();
    expect(body.max_tokens).toBe(64);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.prediction).toBeUndefined();
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it("cerebras: no stream_options (usage arrives on the last chunk anyway)", async () => {
    const { body } = await sentBody({
      preset: "cerebras",
      model: "llama3.1-8b",
      apiKey: "csk-test",
    });
    expect(body.stream_options).toBeUndefined();
    expect(body.prediction).toBeUndefined();
  });

  it("custom headers reach the upstream and may replace the defaults", async () => {
    const { headers } = await sentBody({
      headers: { "x-title": "Spark", "user-agent": "spark-test" },
    });
    expect(headers["x-title"]).toBe("Spark");
    expect(headers["user-agent"]).toBe("spark-test");
  });
});

describe("a local server without a configured model", () => {
  it("uses the first model its /models lists, asking once", async () => {
    server.models = [{ id: "qwen2.5-coder-1.5b-instruct-q8_0.gguf", object: "model" }];
    const engine = engineFor(server.baseUrl, { preset: "llama-server", model: undefined });
    const listsBefore = server.requests.filter((recorded) => recorded.url === "/v1/models").length;
    for (let turn = 0; turn < 2; turn += 1) {
      const result = await collectStream(
        engine.stream({ messages: [{ role: "user", content: "hi" }] }),
      );
      expect(result.error).toBeUndefined();
      const body = JSON.parse(server.chatRequests().at(-1)?.body ?? "{}") as { model?: string };
      expect(body.model).toBe("qwen2.5-coder-1.5b-instruct-q8_0.gguf");
    }
    expect(server.requests.filter((recorded) => recorded.url === "/v1/models").length).toBe(
      listsBefore + 1,
    );
    await engine.dispose();
  });

  it("is model_not_found when the server lists none", async () => {
    server.models = [];
    const engine = engineFor(server.baseUrl, { preset: "vllm", model: undefined });
    const result = await collectStream(
      engine.stream({ messages: [{ role: "user", content: "hi" }] }),
    );
    await engine.dispose();
    expect(result.error?.code).toBe("model_not_found");
    expect(result.error?.message).toContain("lists no models");
  });
});
