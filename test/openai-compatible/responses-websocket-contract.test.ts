// The shared Engine contract for the OpenAI-compatible engine in Responses WebSocket mode
// (`transport = "websocket"`): real sockets to Spark's own gateway over the synthetic engine, which
// speaks OpenAI's WebSocket mode at /v1/responses. Then a session's turns against the same
// gateway: one socket, the follow-up continues the stored chain (`previous_response_id`).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage } from "../../src/engines/engine.ts";
import { createOpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";
import { contractTool, runEngineContract } from "../support/run-engine-contract.ts";
import { WsRecordingProxy } from "./ws-recording-proxy.ts";
// 500 tokens/s: the gateway coalesces the tokens of one loop turn into one delta, so a faster
// synthetic engine on a loaded machine can catch up in one tick and send its reply as one delta.

let upstream: GatewayHarness;
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

const webSocketEngine = () =>
  createOpenAICompatibleEngine({
    preset: "custom",
    api: "responses",
    transport: "websocket",
    baseUrl: `${upstream.url}/v1`,
    model: upstream.model,
    warmUp: false,
    timeouts: { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000 },
  });

runEngineContract({
  name: "openai-compatible, api = responses, transport = websocket (Spark gateway as the upstream)",
  createEngine: async () => webSocketEngine(),
});

/** The gateway's stored response: what it was asked to continue from. */
async function storedResponse(
  id: string,
): Promise<{ status: string; previous_response_id: string | null }> {
  const response = await fetch(`${upstream.url}/v1/responses/${id}`);
  return (await response.json()) as { status: string; previous_response_id: string | null };
}

describe("Responses WebSocket mode against spark serve", () => {
  it("warms up, then continues the session's chain on one socket with only the new input", async () => {
    const proxy = await WsRecordingProxy.start(upstream.url);
    const engine = createOpenAICompatibleEngine({
      preset: "custom",
      api: "responses",
      transport: "websocket",
      baseUrl: `${proxy.url}/v1`,
      model: upstream.model,
      warmUp: false,
    });
    try {
      const messages: ChatMessage[] = [
        { role: "system", content: "You are terse." },
        { role: "user", content: "First question." },
      ];
      const turn = (prefillOnly = false) =>
        collectStream(
          engine.stream({
            messages,
            sessionKey: "chain-a",
            sampling: { maxOutputTokens: 8 },
            ...(prefillOnly ? { prefillOnly } : {}),
          }),
        );
      const warmUp = await turn(true);
      expect(warmUp.error).toBeUndefined();
      expect(warmUp.text).toBe("");
      const first = await turn();
      expect(first.error).toBeUndefined();
      messages.push({ role: "assistant", content: first.text });
      messages.push({ role: "user", content: "Second question." });
      const second = await turn();
      expect(second.error).toBeUndefined();
      expect(second.text.length).toBeGreaterThan(0);

      expect(proxy.connections).toBe(1);
      const [warm, answer, followUp] = proxy.creates();
      expect(warm).toMatchObject({
        generate: false,
        input: [{ role: "user", content: "First question." }],
      });
      expect(warm).not.toHaveProperty("max_output_tokens");
      expect(answer).toMatchObject({ input: [] });
      expect(followUp).toMatchObject({
        input: [{ role: "user", content: "Second question." }],
        instructions: "You are terse.",
      });
      // The gateway accepted each continuation: its stored responses chain back to the warm-up.
      const followUpStored = await storedResponse(String(followUp?.previous_response_id));
      // Both turns stopped at max output tokens: "incomplete", a state a chain continues from.
      expect(followUpStored.status).toBe("incomplete");
      const answerStored = await storedResponse(String(answer?.previous_response_id));
      expect(answerStored.status).toBe("completed");
      expect(followUpStored.previous_response_id).toBe(answer?.previous_response_id);
      // The upstream rebuilt the whole conversation from the chain: it counts every input token.
      expect(second.usage?.inputTokens).toBeGreaterThan(first.usage?.inputTokens ?? Infinity);
    } finally {
      await engine.dispose();
      await proxy.close();
    }
  });
});
