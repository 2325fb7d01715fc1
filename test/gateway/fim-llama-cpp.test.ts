// The FIM endpoints on the embedded engine and the project's test model: the prompt built from the
// vocabulary's own FIM tokens, the document's KV cache reused by the next keystroke, the
// configured template for a model without them, and the typed error when it has neither.
// Assertions never read the text's meaning: the test model's output is noise.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

const prefix = "export function add(a: number, b: number): number {\n  const sum = ";
const suffix = "\n  return sum;\n}\n";

async function startOn(
  fimTokens: boolean,
  fimTemplate?: string,
): Promise<{ harness: GatewayHarness; engine: LlamaCppEngine; client: OpenAI }> {
  const engine = await createLlamaCppEngine({
    modelPath: await ensureTestModel({ fimTokens }),
    threads: 1,
    sequences: 2,
    contextSize: 2048,
    ...(fimTemplate === undefined ? {} : { fimTemplate }),
  });
  const harness = await startGatewayHarness(engine);
  const client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
  return { harness, engine, client };
}

describe("FIM completions on the embedded engine, model with FIM tokens", () => {
  let harness: GatewayHarness;
  let engine: LlamaCppEngine;
  let client: OpenAI;
  beforeAll(async () => ({ harness, engine, client } = await startOn(true)));
  afterAll(async () => {
    await harness?.close();
    await engine?.dispose();
  });

  it("builds the prompt from the model's own FIM tokens", async () => {
    expect(engine.hasFimTokens).toBe(true);
    const completion = await client.completions.create({
      model: harness.model,
      prompt: prefix,
      suffix,
      max_tokens: 6,
      temperature: 0,
    });
    expect(completion.object).toBe("text_completion");
    expect(["stop", "length"]).toContain(completion.choices[0]?.finish_reason);
    // <|fim_prefix|> prefix <|fim_suffix|> suffix <|fim_middle|>: three special tokens.
    expect(completion.usage?.prompt_tokens).toBe(
      engine.countTokens(prefix) + engine.countTokens(suffix) + 3,
    );
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it("streams the same text as the non-streamed answer", async () => {
    const request = { model: harness.model, prompt: prefix, suffix, max_tokens: 8, seed: 3 };
    const whole = await client.completions.create({ ...request, temperature: 0 });
    const stream = await client.completions.create({ ...request, temperature: 0, stream: true });
    let streamed = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.text ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(streamed).toBe(whole.choices[0]?.text);
    expect(finish).toBe(whole.choices[0]?.finish_reason);
  });

  it("reuses the document's cached prefix on the next keystroke", async () => {
    const request = {
      model: harness.model,
      suffix,
      max_tokens: 4,
      temperature: 0,
      prompt_cache_key: "src/add.ts",
    };
    await client.completions.create({ ...request, prompt: prefix });
    const second = await client.completions.create({ ...request, prompt: `${prefix}x` });
    // The cursor line's typed text ends the prompt (after <|fim_middle|>, the default line
    // split): the second prompt is the first plus the typed "x", the suffix included.
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(
      (second.usage?.prompt_tokens ?? 0) - 1,
    );
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(
      engine.countTokens(prefix) + engine.countTokens(suffix),
    );
  });

  it("/infill takes input_extra and reports cached tokens in timings", async () => {
    const body = {
      input_prefix: prefix,
      input_suffix: suffix,
      input_extra: [{ filename: "src/math.ts", text: "export const zero = 0;\n" }],
      filename: "src/add.ts",
      n_predict: 4,
      temperature: 0,
    };
    const post = async (extraTyping: string): Promise<Record<string, unknown>> => {
      const response = await fetch(`${harness.url}/infill`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, input_prefix: prefix + extraTyping }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    const first = await post("");
    expect(first).toMatchObject({ stop: true, model: harness.model });
    expect(typeof first.content).toBe("string");
    // Repository-level prompt: <|repo_name|>, one <|file_sep|> per file, then the FIM block.
    const plainPrompt = engine.countTokens(prefix) + engine.countTokens(suffix) + 3;
    expect(first.tokens_evaluated).toBeGreaterThan(plainPrompt + engine.countTokens("zero"));
    const second = await post("a");
    const timings = second.timings as { cache_n: number; prompt_n: number };
    expect(timings.cache_n).toBeGreaterThan(engine.countTokens(body.input_extra[0]?.text ?? ""));
    expect(timings.prompt_n).toBeGreaterThan(0);
  });
});

describe("FIM completions on the embedded engine, model without FIM tokens", () => {
  it("refuses with fim_unsupported when no template is configured", async () => {
    const { harness, engine, client } = await startOn(false);
    try {
      expect(engine.hasFimTokens).toBe(false);
      const refusal = client.completions.create({ model: harness.model, prompt: "x", suffix: "" });
      await expect(refusal).rejects.toMatchObject({ status: 400, code: "fim_unsupported" });
      const streamed = client.completions.create({
        model: harness.model,
        prompt: "x",
        suffix: "",
        stream: true,
      });
      await expect(streamed).rejects.toMatchObject({ status: 400, code: "fim_unsupported" });
      // A plain completion (no suffix) needs no FIM format.
      const plain = await client.completions.create({
        model: harness.model,
        prompt: "x",
        max_tokens: 2,
      });
      expect(plain.usage?.prompt_tokens).toBe(engine.countTokens("x"));
    } finally {
      await harness.close();
      await engine.dispose();
    }
  });

  it("renders the configured fim_template", async () => {
    const template = "<|im_start|>{prefix}<|im_end|>{suffix}<|im_start|>";
    const { harness, engine, client } = await startOn(false, template);
    try {
      const completion = await client.completions.create({
        model: harness.model,
        prompt: prefix,
        suffix,
        max_tokens: 2,
      });
      expect(completion.usage?.prompt_tokens).toBe(
        engine.countTokens(prefix) + engine.countTokens(suffix) + 3,
      );
    } finally {
      await harness.close();
      await engine.dispose();
    }
  });
});
