// tool_choice through the gateway to the real embedded engine: the openai SDK asks for a required
// call and gets a grammar-constrained function call back, on Chat Completions and on Responses.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

const parameters = {
  type: "object",
  properties: { mode: { type: "string", enum: ["fast", "deep"] } },
  required: ["mode"],
};

describe("tool_choice through the gateway to llama-cpp", () => {
  let harness: GatewayHarness;
  let client: OpenAI;
  beforeAll(async () => {
    const engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 2,
      contextSize: 2048,
    });
    harness = await startGatewayHarness(engine);
    client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
  });
  afterAll(async () => {
    await harness?.close();
    await harness?.engine.dispose();
  });

  it("chat.completions with tool_choice required returns tool_calls", async () => {
    const completion = await client.chat.completions.create({
      model: harness.model,
      messages: [{ role: "user", content: "Pick a mode." }],
      tools: [{ type: "function", function: { name: "set_mode", parameters } }],
      tool_choice: "required",
      temperature: 0,
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type === "function" ? call.function.name : undefined).toBe("set_mode");
    const parsed = JSON.parse(call?.type === "function" ? call.function.arguments : "null") as {
      mode: string;
    };
    expect(["fast", "deep"]).toContain(parsed.mode);
  });

  it("responses.create with a named tool_choice returns a function_call item", async () => {
    const response = await client.responses.create({
      model: harness.model,
      input: "Pick a mode.",
      tools: [{ type: "function", name: "set_mode", parameters, strict: false }],
      tool_choice: { type: "function", name: "set_mode" },
      temperature: 0,
    });
    const call = response.output.find((item) => item.type === "function_call");
    expect(call?.type === "function_call" ? call.name : undefined).toBe("set_mode");
  });
});
