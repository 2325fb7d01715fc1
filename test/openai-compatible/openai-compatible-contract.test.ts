// The shared Engine contract, run against the OpenAI-compatible engine talking real HTTP/SSE to a
// deterministic loopback upstream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import { createOpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { runEngineContract } from "../support/run-engine-contract.ts";
import { DeterministicUpstream } from "./deterministic-upstream.ts";

let upstream: DeterministicUpstream;
beforeAll(async () => {
  upstream = await DeterministicUpstream.start({ tokenDelayMs: 2 });
});
afterAll(async () => {
  await upstream.close();
});

runEngineContract({
  name: "openai-compatible (deterministic loopback upstream)",
  createEngine: async () =>
    createOpenAICompatibleEngine({
      preset: "openai",
      baseUrl: upstream.baseUrl,
      apiKey: "sk-loopback",
      model: "deterministic",
      timeouts: { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000 },
    }),
  model: "deterministic",
  skip: {
    "structured output follows the schema or is refused":
      "the loopback upstream writes fixed words whatever the request; what the engine sends it " +
      "(response_format) is checked in structured-output-forwarding.test.ts",
  },
});

describe("deterministic upstream", () => {
  it("sees aborted streams as closed connections", async () => {
    const engine = createOpenAICompatibleEngine({
      preset: "vllm",
      baseUrl: upstream.baseUrl,
      model: "deterministic",
      warmUp: false,
    });
    const controller = new AbortController();
    const before = upstream.abortedStreams;
    for await (const event of engine.stream(
      { messages: [{ role: "user", content: "Tell a long story." }] },
      { signal: controller.signal },
    )) {
      if (event.type === "text-delta") controller.abort();
    }
    await engine.dispose();
    await expect.poll(() => upstream.abortedStreams).toBe(before + 1);
  });

  it("answers an empty message list with OpenAI's 400 when a client skips validation", async () => {
    const response = await fetch(`${upstream.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "deterministic", messages: [], stream: true }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { type: "invalid_request_error", param: "messages" },
    });
  });

  it("is deterministic and stops at max tokens", async () => {
    const engine = createOpenAICompatibleEngine({
      preset: "vllm",
      baseUrl: upstream.baseUrl,
      model: "deterministic",
      warmUp: false,
    });
    const request = {
      messages: [{ role: "user" as const, content: "Same prompt." }],
      sampling: { maxOutputTokens: 7 },
    };
    const first = await collectStream(engine.stream(request));
    const second = await collectStream(engine.stream(request));
    await engine.dispose();
    expect(first.text).toBe(second.text);
    expect(first.text.split(" ")).toHaveLength(7);
    expect(first.finishReason).toBe("length");
    expect(first.usage?.outputTokens).toBe(7);
  });
});

describe("deterministic upstream fidelity", () => {
  it("streams chunks the official openai SDK reads as a chat completion", async () => {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({ baseURL: upstream.baseUrl, apiKey: "sk-loopback" });
    const stream = await client.chat.completions.create({
      model: "deterministic",
      messages: [{ role: "user", content: "Say hello." }],
      max_completion_tokens: 4,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finishReason: string | null = null;
    let completionTokens: number | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      text += chunk.choices[0]?.delta.content ?? "";
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
      completionTokens = chunk.usage?.completion_tokens ?? completionTokens;
    }
    expect(text.split(" ")).toHaveLength(4);
    expect(finishReason).toBe("length");
    expect(completionTokens).toBe(4);
  });
});
