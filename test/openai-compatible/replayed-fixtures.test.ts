// Recorded server streams, replayed over real HTTP whole and in random-sized pieces: every server's
// shape must decode to the same text, tool calls, usage and finish reason however the bytes arrive.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream, type CollectedStream } from "../../src/engines/collect-stream.ts";
import type { OpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { engineFor, userRequest } from "./engine-for-replay.ts";
import { ReplayServer, type ReplayResponse } from "./replay-server.ts";

let server: ReplayServer;
let engine: OpenAICompatibleEngine;

beforeAll(async () => {
  server = await ReplayServer.start();
  engine = engineFor(server.baseUrl);
});
afterAll(async () => {
  await engine.dispose();
  await server.close();
});

async function replay(response: ReplayResponse): Promise<CollectedStream> {
  server.respondWith(response);
  return collectStream(engine.stream(userRequest));
}

interface Expectation {
  fixture: string;
  text: string;
  toolCalls?: Array<{ name: string; arguments: string }>;
  finishReason: string;
  usage: Record<string, number>;
}

const expectations: Expectation[] = [
  {
    fixture: "openai-text.sse",
    text: "Hello! How can I help you today?",
    finishReason: "stop",
    usage: {
      inputTokens: 1187,
      cachedInputTokens: 1024,
      outputTokens: 9,
      acceptedPredictionTokens: 0,
    },
  },
  {
    fixture: "openai-tool-calls.sse",
    text: "",
    toolCalls: [
      { name: "read_file", arguments: '{"path": "src/index.ts"}' },
      { name: "grep", arguments: '{"pattern": "TODO", "path": "src"}' },
    ],
    finishReason: "tool_calls",
    usage: { inputTokens: 312, cachedInputTokens: 0, outputTokens: 52 },
  },
  {
    fixture: "openai-prediction.sse",
    text: "export function add(a: number, b: number) {\n  return a + b;\n}\n",
    finishReason: "stop",
    usage: {
      inputTokens: 96,
      outputTokens: 41,
      acceptedPredictionTokens: 15,
      rejectedPredictionTokens: 4,
    },
  },
  {
    fixture: "vllm-text.sse",
    text: "def fib(n):\n    return n if n < ",
    finishReason: "length",
    usage: { inputTokens: 38, cachedInputTokens: 0, outputTokens: 11 },
  },
  {
    fixture: "vllm-tool-calls.sse",
    text: "",
    toolCalls: [{ name: "run_command", arguments: '{"command": "npm test"}' }],
    finishReason: "tool_calls",
    usage: { inputTokens: 402, outputTokens: 23 },
  },
  {
    fixture: "llama-server-text.sse",
    text: "Sure, here is the fix.",
    finishReason: "stop",
    usage: { inputTokens: 248, cachedInputTokens: 236, outputTokens: 7 },
  },
  {
    fixture: "cerebras-text.sse",
    text: "Fast inference keeps you in flow.",
    finishReason: "stop",
    usage: { inputTokens: 21, cachedInputTokens: 0, outputTokens: 7 },
  },
  {
    fixture: "groq-text.sse",
    text: "Low latency matters.",
    finishReason: "stop",
    usage: { inputTokens: 44, outputTokens: 4 },
  },
  {
    fixture: "ollama-tool-calls.sse",
    text: "",
    toolCalls: [{ name: "list_files", arguments: '{"path":"."}' }],
    finishReason: "tool_calls",
    usage: { inputTokens: 187, outputTokens: 19 },
  },
  {
    fixture: "openrouter-text.sse",
    text: "Yes, it works.",
    finishReason: "stop",
    usage: { inputTokens: 15, outputTokens: 5 },
  },
];

describe("replayed server streams", () => {
  for (const expected of expectations) {
    it(`decodes ${expected.fixture}, whole and in random pieces`, async () => {
      const plans: ReplayResponse[] = [
        { fixture: expected.fixture },
        { fixture: expected.fixture, randomChunks: { seed: 7, maxChunkBytes: 3 } },
        { fixture: expected.fixture, randomChunks: { seed: 42, maxChunkBytes: 40 } },
      ];
      for (const plan of plans) {
        const result = await replay(plan);
        expect(result.error).toBeUndefined();
        expect(result.text).toBe(expected.text);
        expect(
          result.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args })),
        ).toEqual(expected.toolCalls ?? []);
        expect(result.finishReason).toBe(expected.finishReason);
        expect(result.usage).toMatchObject(expected.usage);
        const types = result.events.map((event) => event.type);
        expect(types.slice(-3)).toEqual(["usage", "timings", "finish"]);
        expect(types.filter((type) => type === "finish")).toHaveLength(1);
        expect(result.timings?.timeToFirstTokenMs).toBeGreaterThanOrEqual(0);
      }
    });
  }

  it("emits tool-call start, argument deltas and end in order, with the upstream's ids", async () => {
    const result = await replay({ fixture: "openai-tool-calls.sse" });
    const toolEvents = result.events.filter((event) => event.type.startsWith("tool-call"));
    expect(toolEvents[0]).toEqual({
      type: "tool-call-start",
      id: "call_Qx8sY3kWm1LZ0bGc4VtPnR7d",
      name: "read_file",
    });
    const firstArguments = toolEvents
      .filter(
        (event) => event.type === "tool-call-delta" && event.id === "call_Qx8sY3kWm1LZ0bGc4VtPnR7d",
      )
      .map((event) => (event.type === "tool-call-delta" ? event.argumentsDelta : ""));
    expect(firstArguments).toEqual(['{"pa', 'th":', ' "src', "/index", '.ts"}']);
    expect(
      toolEvents.filter((event) => event.type === "tool-call-end").map((event) => event.id),
    ).toEqual(["call_Qx8sY3kWm1LZ0bGc4VtPnR7d", "call_Hn2vK9pTf4aE6jUw0sXcB5qM"]);
  });

  it("reports an error object sent mid-stream as a retryable upstream error after the partial text", async () => {
    const result = await replay({ fixture: "openrouter-midstream-error.sse" });
    expect(result.text).toBe("Partial answer");
    expect(result.finishReason).toBe("error");
    expect(result.error?.code).toBe("upstream_error");
    expect(result.error?.retryable).toBe(true);
    expect(result.error?.message).toContain("Provider disconnected unexpectedly");
  });

  it("accepts CRLF line endings", async () => {
    const crlf = (await import("./replay-server.ts"))
      .readFixture("openai-text.sse")
      .toString("utf8")
      .replaceAll("\n", "\r\n");
    const result = await replay({ body: crlf, randomChunks: { seed: 3, maxChunkBytes: 5 } });
    expect(result.text).toBe("Hello! How can I help you today?");
    expect(result.finishReason).toBe("stop");
  });
});
