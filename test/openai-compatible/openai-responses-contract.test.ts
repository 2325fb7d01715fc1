// The shared Engine contract for the OpenAI-compatible engine in Responses mode (`api =
// "responses"`): real HTTP/SSE to a loopback upstream that speaks the Responses API, Spark's own
// gateway over the synthetic engine (its wire is checked against the OpenAI SDK's types in
// test/gateway/wire-types.test.ts). Stop sequences, which the API lacks, are applied client-side.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import { createOpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";
import { contractTool, runEngineContract } from "../support/run-engine-contract.ts";

let upstream: GatewayHarness;
// 500 tokens/s: the gateway coalesces the tokens of one loop turn into one delta, so a faster
// synthetic engine on a loaded machine can catch up in one tick and send its reply as one delta.
beforeAll(async () => {
  upstream = await startGatewayHarness(
    createSyntheticEngine({
      tokensPerSecond: 500,
      // Answers the contract's tool-call case (only it offers this tool).
      toolCall: { name: contractTool.name, arguments: '{"city":"Paris"}' },
    }),
  );
});
afterAll(async () => {
  await upstream.close();
});

const responsesEngine = () =>
  createOpenAICompatibleEngine({
    preset: "custom",
    api: "responses",
    baseUrl: `${upstream.url}/v1`,
    model: upstream.model,
    warmUp: false,
    timeouts: { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000 },
  });

runEngineContract({
  name: "openai-compatible, api = responses (Spark gateway as the upstream)",
  createEngine: async () => responsesEngine(),
});

describe("Responses mode", () => {
  it("sends tools and reads function calls back", async () => {
    const toolUpstream = await startGatewayHarness(
      createSyntheticEngine({ toolCall: { name: "read_file", arguments: '{"path":"a.ts"}' } }),
    );
    const engine = createOpenAICompatibleEngine({
      preset: "custom",
      api: "responses",
      baseUrl: `${toolUpstream.url}/v1`,
      model: toolUpstream.model,
      warmUp: false,
    });
    try {
      const result = await collectStream(
        engine.stream({
          messages: [{ role: "user", content: "Read a.ts" }],
          tools: [{ name: "read_file", parameters: { type: "object", properties: {} } }],
          toolChoice: "required",
        }),
      );
      expect(result.error).toBeUndefined();
      expect(result.finishReason).toBe("tool_calls");
      expect(result.toolCalls).toEqual([
        { id: expect.any(String) as string, name: "read_file", arguments: '{"path":"a.ts"}' },
      ]);
    } finally {
      await engine.dispose();
      await toolUpstream.close();
    }
  });
});
