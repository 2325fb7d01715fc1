// The Anthropic SDK against a real gateway over the embedded engine: a conversation resent whole
// each turn, with cache_control marks as Claude Code places them, reports the engine's real prefix
// reuse as cache_read_input_tokens (input_tokens is then only the new part, as Anthropic counts).
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";
import { ensureTestModel } from "../support/test-model.ts";

/** About 700 tokens of a code question (the test model: about a token a byte). */
const question = `Why does this function allocate on every call?\n${"export function sum(values: number[]): number {\n  return values.reduce((total, value) => total + value, 0);\n}\n".repeat(7)}`;

describe("Anthropic SDK: cache_read_input_tokens is the engine's prefix reuse", () => {
  let harness: GatewayHarness;
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

  it("turns 2 and 3 read at least 90% of the previous prompt from the cache", async () => {
    const anthropic = new Anthropic({ baseURL: harness.url, apiKey: "unused", maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [];
    const prompts: Array<{ input: number; cached: number }> = [];
    for (let turn = 1; turn <= 3; turn += 1) {
      messages.push({
        role: "user",
        content: [
          {
            type: "text",
            text: turn === 1 ? question : `Turn ${turn}: go on.`,
            cache_control: { type: "ephemeral" },
          },
        ],
      });
      const request = {
        model: "claude-sonnet-4-6",
        max_tokens: 8,
        system: [
          {
            type: "text" as const,
            text: "You are a concise TypeScript reviewer.",
            cache_control: { type: "ephemeral" as const },
          },
        ],
        messages,
      };
      // The last turn streams: its usage arrives in message_delta.
      const message =
        turn === 3
          ? await anthropic.messages.stream(request).finalMessage()
          : await anthropic.messages.create(request);
      messages.push({ role: "assistant", content: message.content });
      const cached = message.usage.cache_read_input_tokens ?? -1;
      prompts.push({ input: message.usage.input_tokens + cached, cached });
      expect(message.usage.cache_creation_input_tokens).toBe(0);
    }
    expect(prompts[0]?.input).toBeGreaterThan(500);
    for (let turn = 2; turn <= 3; turn += 1) {
      const previous = prompts[turn - 2];
      const current = prompts[turn - 1];
      expect(current?.cached, `turn ${turn}`).toBeGreaterThanOrEqual(0.9 * (previous?.input ?? 0));
    }
  });
});
