// The AI SDK's OpenAI Responses provider (ai 6, @ai-sdk/openai 3, pinned) with its default
// settings against a real gateway over the scripted engine: a two-step tool loop, whose second
// request names the first step's output items by `item_reference` (the provider's default for
// stored responses).
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createScriptEngine, type ScriptEngine } from "../../src/engines/script/script-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";

let harness: GatewayHarness | undefined;
afterEach(async () => harness?.close());

async function start(): Promise<{ engine: ScriptEngine; sentBodies: unknown[] }> {
  const engine = await createScriptEngine({
    turns: [
      {
        text: "Checking the weather.",
        toolCalls: [{ name: "weather", arguments: { city: "Paris" } }],
      },
      {
        text: "It is sunny in Paris.",
        expect: { lastMessageRole: "tool", lastMessageIncludes: "sunny" },
      },
    ],
  });
  harness = await startGatewayHarness(engine);
  return { engine, sentBodies: [] };
}

function provider(url: string, sentBodies: unknown[]): ReturnType<typeof createOpenAI> {
  return createOpenAI({
    baseURL: `${url}/v1`,
    apiKey: "unused",
    // Records what the SDK sends, so the test knows item_reference was really exercised.
    fetch: async (input, init) => {
      if (typeof init?.body === "string") sentBodies.push(JSON.parse(init.body));
      return fetch(input, init);
    },
  });
}

const weather = tool({
  description: "The weather in a city.",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: "sunny" }),
});

function sentItemReferences(sentBodies: unknown[]): unknown[] {
  const second = sentBodies[1] as { input?: Array<{ type?: string }> } | undefined;
  return (second?.input ?? []).filter((item) => item.type === "item_reference");
}

describe("AI SDK Responses provider", () => {
  it("generateText runs a two-step tool loop; step 2's item references resolve", async () => {
    const { engine, sentBodies } = await start();
    const openai = provider(harness?.url ?? "", sentBodies);
    const result = await generateText({
      model: openai.responses(harness?.model ?? ""),
      tools: { weather },
      stopWhen: stepCountIs(3),
      prompt: "What is the weather in Paris?",
    });
    expect(result.text).toBe("It is sunny in Paris.");
    expect(result.steps).toHaveLength(2);
    expect(sentItemReferences(sentBodies).length).toBeGreaterThan(0);
    // The referenced items reached the engine as the assistant's turn.
    expect(engine.requests[1]?.messages).toContainEqual(
      expect.objectContaining({
        role: "assistant",
        content: "Checking the weather.",
        toolCalls: [expect.objectContaining({ name: "weather", arguments: '{"city":"Paris"}' })],
      }),
    );
  });

  it("streamText does the same over server-sent events", async () => {
    const { sentBodies } = await start();
    const openai = provider(harness?.url ?? "", sentBodies);
    const result = streamText({
      model: openai.responses(harness?.model ?? ""),
      tools: { weather },
      stopWhen: stepCountIs(3),
      prompt: "What is the weather in Paris?",
    });
    expect(await result.text).toBe("It is sunny in Paris.");
    expect(await result.steps).toHaveLength(2);
    expect(sentItemReferences(sentBodies).length).toBeGreaterThan(0);
  });
});
