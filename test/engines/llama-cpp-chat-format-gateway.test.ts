// End to end through the gateway: a model carrying Llama 3.1's template (not Hermes) on the
// embedded engine's chat-format path, the openai SDK streaming /v1/responses with a required
// read_file call: the call comes as Llama 3.1's JSON parsed by llama.cpp's parser, and its
// arguments stream as several response.function_call_arguments.delta events adding up to the
// item's arguments.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { chatFamilies } from "./support/chat-families.ts";
import { llamaModelsFolder } from "./support/family-vocab-gguf.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;
const describeReady = ready ? describe : describe.skip;

describeReady("/v1/responses on a Llama 3.1 model under its chat format", () => {
  let engine: LlamaCppEngine | undefined;
  let harness: GatewayHarness | undefined;
  let client: OpenAI;
  beforeAll(async () => {
    const family = chatFamilies.find((candidate) => candidate.name === "Llama 3.1");
    if (family === undefined) throw new Error("no Llama 3.1 family");
    const folder = await llamaModelsFolder([family.vocab]);
    const template = await readFile(join(folder, "templates", family.template), "utf8");
    engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel({ chatTemplate: template }),
      threads: 1,
      sequences: 1,
      contextSize: 4096,
    });
    harness = await startGatewayHarness(engine);
    client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
  });
  afterAll(async () => {
    await harness?.close();
    await engine?.dispose();
  });

  it("streams the required call's arguments as deltas", async () => {
    expect(engine?.chatPath).toBe("chat-format");
    const stream = await client.responses.create({
      model: harness?.model ?? "",
      input: "Read a file.",
      tools: [
        {
          type: "function",
          name: "read_file",
          strict: false,
          parameters: {
            type: "object",
            properties: { path: { type: "string", maxLength: 12 } },
            required: ["path"],
          },
        },
      ],
      tool_choice: "required",
      temperature: 0,
      max_output_tokens: 600,
      stream: true,
    });
    const deltas: string[] = [];
    let done: { name: string; arguments: string } | undefined;
    for await (const event of stream) {
      if (event.type === "response.function_call_arguments.delta") deltas.push(event.delta);
      if (event.type === "response.output_item.done" && event.item.type === "function_call")
        done = { name: event.item.name, arguments: event.item.arguments };
    }
    expect(done?.name).toBe("read_file");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join("")).toBe(done?.arguments);
    expect(typeof (JSON.parse(done?.arguments ?? "") as { path: unknown }).path).toBe("string");
  });
});
