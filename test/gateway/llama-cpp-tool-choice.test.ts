// tool_choice through the gateway to the real embedded engine: the openai SDK asks for a required
// call and gets a grammar-constrained function call back, on Chat Completions and on Responses;
// and with tool_choice auto, a scripted model that writes text then opens <tool_call> streams both
// (on the native loop where it is built) as the SDK's events.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel, type EnsureTestModelOptions } from "../support/test-model.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

const parameters = {
  type: "object",
  properties: { mode: { type: "string", enum: ["fast", "deep"] } },
  required: ["mode"],
};

/** A gateway over the embedded engine on a test model, and the openai SDK pointed at it. */
function gatewayOverTestModel(model: EnsureTestModelOptions = {}): {
  harness: () => GatewayHarness;
  client: () => OpenAI;
} {
  let harness: GatewayHarness | undefined;
  let client: OpenAI | undefined;
  beforeAll(async () => {
    const engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(model),
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
  const started = <Value>(value: Value | undefined): Value => {
    if (value === undefined) throw new Error("the gateway did not start");
    return value;
  };
  return { harness: () => started(harness), client: () => started(client) };
}

describe("tool_choice through the gateway to llama-cpp", () => {
  const gateway = gatewayOverTestModel();

  it("chat.completions with tool_choice required returns tool_calls", async () => {
    const completion = await gateway.client().chat.completions.create({
      model: gateway.harness().model,
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
    const response = await gateway.client().responses.create({
      model: gateway.harness().model,
      input: "Pick a mode.",
      tools: [{ type: "function", name: "set_mode", parameters, strict: false }],
      tool_choice: { type: "function", name: "set_mode" },
      temperature: 0,
    });
    const call = response.output.find((item) => item.type === "function_call");
    expect(call?.type === "function_call" ? call.name : undefined).toBe("set_mode");
  });
});

describe("a required call cut by the token limit", () => {
  const gateway = gatewayOverTestModel();

  it("comes back as far as it got on both APIs, flagged as cut (issue 24)", async () => {
    const completion = await gateway.client().chat.completions.create({
      model: gateway.harness().model,
      messages: [{ role: "user", content: "Pick a mode." }],
      tools: [{ type: "function", function: { name: "set_mode", parameters } }],
      tool_choice: "required",
      temperature: 0,
      max_tokens: 60,
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("length");
    const chatCall = choice?.message.tool_calls?.[0];
    expect(chatCall?.type === "function" ? chatCall.function.name : undefined).toBe("set_mode");
    const chatArguments = chatCall?.type === "function" ? chatCall.function.arguments : "";
    expect(chatArguments).not.toBe("");
    expect(() => JSON.parse(chatArguments) as unknown).toThrow();

    const response = await gateway.client().responses.create({
      model: gateway.harness().model,
      input: "Pick a mode.",
      tools: [{ type: "function", name: "set_mode", parameters, strict: false }],
      tool_choice: "required",
      temperature: 0,
      max_output_tokens: 60,
    });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details?.reason).toBe("max_output_tokens");
    const responsesCall = response.output.find((item) => item.type === "function_call");
    expect(responsesCall?.type === "function_call" ? responsesCall.arguments : undefined).toBe(
      chatArguments,
    );
    // The cut call is not a finished one a client could run (issue 33).
    expect(responsesCall?.status).toBe("incomplete");
  });
});

describe("a model's own tool call (tool_choice auto) through the gateway", () => {
  // The model says "OK", then writes a call in Qwen2.5's format, its JSON in four tokens (see
  // scripted-turns.ts).
  const gateway = gatewayOverTestModel({
    turns: [
      {
        tokens: [
          "\n",
          "OK",
          "<tool_call>",
          '\n{"name": "set_mode", ',
          '"arguments": {"mode": ',
          '"fast"',
          "}}\n",
          "</tool_call>",
          "<|im_end|>",
        ],
      },
    ],
  });

  it("streams the text, then the call's arguments as deltas that add up to the final arguments", async () => {
    const stream = await gateway.client().responses.create({
      model: gateway.harness().model,
      input: "Pick a mode.",
      tools: [{ type: "function", name: "set_mode", parameters, strict: false }],
      temperature: 0,
      stream: true,
    });
    let text = "";
    let deltas = "";
    let deltaEvents = 0;
    let done: string | undefined;
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.function_call_arguments.delta") {
        deltas += event.delta;
        deltaEvents += 1;
      }
      if (event.type === "response.function_call_arguments.done") done = event.arguments;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(text).toBe("OK");
    expect(deltaEvents).toBeGreaterThan(0);
    expect(done).toBe(deltas);
    expect(JSON.parse(done ?? "null")).toEqual({ mode: "fast" });
    expect(completed?.status).toBe("completed");
    const call = completed?.output.find((item) => item.type === "function_call");
    expect(call?.type === "function_call" ? call.arguments : undefined).toBe(done);
  });
});
