// Function calling through the gateway with the openai SDK: a function_call output item (and its
// argument deltas), its function_call_output chained with previous_response_id, and tool_calls
// on Chat Completions.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

const readFileTool = {
  type: "function" as const,
  name: "read_file",
  description: "Read a file.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  strict: false,
};
const callArguments = '{"path":"src/index.ts"}';

describe("function calls through the gateway", () => {
  let harness: GatewayHarness;
  let client: OpenAI;
  beforeAll(async () => {
    const engine = createSyntheticEngine({
      tokens: 6,
      toolCall: { name: "read_file", arguments: callArguments },
    });
    harness = await startGatewayHarness(engine);
    client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("streams a function_call item, then answers its output in a chained response", async () => {
    const stream = await client.responses.create({
      model: harness.model,
      input: "Open the entry point.",
      tools: [readFileTool],
      stream: true,
    });
    let argumentsFromDeltas = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.function_call_arguments.delta")
        argumentsFromDeltas += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    const call = completed?.output[0];
    expect(call).toMatchObject({
      type: "function_call",
      name: "read_file",
      arguments: callArguments,
      status: "completed",
    });
    expect(argumentsFromDeltas).toBe(callArguments);
    if (call?.type !== "function_call" || completed === undefined)
      throw new Error("no function call");

    const answer = await client.responses.create({
      model: harness.model,
      previous_response_id: completed.id,
      input: [
        { type: "function_call_output", call_id: call.call_id, output: "export const main = 1;" },
      ],
      tools: [readFileTool],
    });
    expect(answer.output[0]?.type).toBe("message");
    expect(answer.output_text.length).toBeGreaterThan(0);
    expect(answer.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
  });

  it("returns tool_calls from chat.completions, streaming and not", async () => {
    const tools = [
      {
        type: "function" as const,
        function: { name: "read_file", parameters: readFileTool.parameters },
      },
    ];
    const completion = await client.chat.completions.create({
      model: harness.model,
      messages: [{ role: "user", content: "Open the entry point." }],
      tools,
    });
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      type: "function",
      function: { name: "read_file", arguments: callArguments },
    });

    const stream = await client.chat.completions.create({
      model: harness.model,
      messages: [{ role: "user", content: "Open the entry point." }],
      tools,
      stream: true,
    });
    let streamedArguments = "";
    let finishReason: string | null = null;
    for await (const chunk of stream) {
      streamedArguments += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    }
    expect(streamedArguments).toBe(callArguments);
    expect(finishReason).toBe("tool_calls");
  });
});
