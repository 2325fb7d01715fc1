// top_k, min_p and the penalties through the gateway to the real embedded engine, with the openai
// SDK (the fields are not OpenAI's, so they ride as extra body fields, as Continue, opencode and
// llama.vscode send them): top_k 1 or min_p 1 leaves only the most likely token, so a hot seeded
// answer must equal the greedy one, on Chat Completions, Responses and /v1/completions. A field
// dropped on the way would let the seeds wander. Bad values are a 400; a non-zero penalty, which
// the embedded engine cannot apply, a 400 that says so; 0 passes.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

const SEEDS = [1, 2, 3];
const MAX_TOKENS = 24;
const PROMPT = "Name three fruits.";

describe("sampling fields through the gateway to llama-cpp", () => {
  let harness: GatewayHarness;
  let client: OpenAI;
  beforeAll(async () => {
    const engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 2,
      contextSize: 1024,
    });
    harness = await startGatewayHarness(engine);
    client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
  });
  afterAll(async () => {
    await harness.close();
    await harness.engine.dispose();
  });

  const chat = async (extra: Record<string, unknown>): Promise<string> => {
    const completion = await client.chat.completions.create({
      model: harness.model,
      messages: [{ role: "user", content: PROMPT }],
      max_tokens: MAX_TOKENS,
      ...extra,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    return completion.choices[0]?.message.content ?? "";
  };

  it("chat: top_k 1 and min_p 1 give the greedy text for every seed; without them seeds differ", async () => {
    const greedy = await chat({ temperature: 0 });
    expect(greedy.length).toBeGreaterThan(0);
    for (const seed of SEEDS) {
      expect(await chat({ temperature: 1.5, seed, top_k: 1 })).toBe(greedy);
      expect(await chat({ temperature: 1.5, seed, min_p: 1 })).toBe(greedy);
    }
    // The control: hot seeded sampling without a filter strays from greedy.
    const free = await Promise.all(SEEDS.map((seed) => chat({ temperature: 1.5, seed, top_k: 0 })));
    expect(free.some((text) => text !== greedy)).toBe(true);
  });

  it("responses and completions: top_k 1 gives the greedy text", async () => {
    const respond = async (extra: Record<string, unknown>) =>
      (
        await client.responses.create({
          model: harness.model,
          input: PROMPT,
          max_output_tokens: MAX_TOKENS,
          ...extra,
        } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      ).output_text;
    const greedy = await respond({ temperature: 0 });
    for (const seed of SEEDS.slice(0, 2)) {
      expect(await respond({ temperature: 1.5, top_k: 1, seed })).toBe(greedy);
    }
    const complete = async (extra: Record<string, unknown>) =>
      (
        await client.completions.create({
          model: harness.model,
          prompt: "def add(a, b):",
          max_tokens: MAX_TOKENS,
          ...extra,
        } as OpenAI.CompletionCreateParamsNonStreaming)
      ).choices[0]?.text;
    const plain = await complete({ temperature: 0 });
    expect(await complete({ temperature: 1.5, top_k: 1, seed: 5 })).toBe(plain);
  });

  it("refuses bad values and non-zero penalties with a 400 that names the field", async () => {
    const refusal = async (extra: Record<string, unknown>): Promise<string> => {
      const error = await chat(extra).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      return (error as Error).message;
    };
    expect(await refusal({ top_k: 1.5 })).toMatch(/top_k/);
    expect(await refusal({ min_p: 2 })).toMatch(/min_p/);
    expect(await refusal({ presence_penalty: 3 })).toMatch(/presence_penalty/);
    expect(await refusal({ frequency_penalty: 0.5 })).toMatch(/does not apply frequency_penalty/);
    // 0, as clients send by default, is no penalty.
    expect(await chat({ temperature: 0, presence_penalty: 0, frequency_penalty: 0 })).not.toBe("");
  });
});
