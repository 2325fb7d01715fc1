// The AI SDK's OpenAI Responses provider, as the README sets it up, against a real gateway over the
// embedded engine: it resends the whole conversation each turn with no prompt_cache_key and no
// previous_response_id, so every turn arrives with a fresh cache key. From turn 2 on, the engine
// must still find the conversation's sequence and report nearly all of it as cached input.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, type ModelMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";
import { ensureTestModel } from "../support/test-model.ts";

/** About 700 tokens of a code question (the test model: about a token a byte). */
const question = `Why does this function allocate on every call?\n${"export function sum(values: number[]): number {\n  return values.reduce((total, value) => total + value, 0);\n}\n".repeat(7)}`;

describe("AI SDK openai.responses(): a stateless conversation reuses the KV cache", () => {
  let harness: GatewayHarness;
  const sentBodies: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    const engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 4,
      contextSize: 4096,
    });
    harness = await startGatewayHarness(engine);
  });
  afterAll(async () => {
    await harness?.close();
    await harness?.engine.dispose();
  });

  it("turns 2 to 4 report at least 90% of the previous prompt as cached input tokens", async () => {
    const openai = createOpenAI({
      baseURL: `${harness.url}/v1`,
      apiKey: "unused",
      fetch: async (input, init) => {
        if (typeof init?.body === "string")
          sentBodies.push(JSON.parse(init.body) as Record<string, unknown>);
        return fetch(input, init);
      },
    });
    const model = openai.responses(harness.model);
    const messages: ModelMessage[] = [];
    const prompts: Array<{ input: number; cached: number }> = [];
    for (let turn = 1; turn <= 4; turn += 1) {
      messages.push({ role: "user", content: turn === 1 ? question : `Turn ${turn}: go on.` });
      const result = await generateText({
        model,
        system: "You are a concise TypeScript reviewer.",
        messages,
        maxOutputTokens: 8,
        temperature: 0,
      });
      messages.push(...result.response.messages);
      prompts.push({
        input: result.usage.inputTokens ?? 0,
        cached: result.usage.inputTokenDetails.cacheReadTokens ?? -1,
      });
    }
    // The client really was stateless: no key, no chaining.
    for (const body of sentBodies) {
      expect(body.prompt_cache_key).toBeUndefined();
      expect(body.previous_response_id).toBeUndefined();
    }
    expect(prompts[0]?.input).toBeGreaterThan(500);
    for (let turn = 2; turn <= 4; turn += 1) {
      const previous = prompts[turn - 2];
      const current = prompts[turn - 1];
      expect(current?.cached, `turn ${turn}`).toBeGreaterThanOrEqual(0.9 * (previous?.input ?? 0));
    }
  });
});
