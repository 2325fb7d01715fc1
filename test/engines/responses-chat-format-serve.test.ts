// The real `spark serve` with a Qwen3-Coder model (per-argument XML calls, its real template) on the
// embedded engine, the openai SDK streaming /v1/responses through an agent's three rounds: the
// read_file call, then the multi-line apply_patch call whose arguments arrive as
// response.function_call_arguments.delta events adding up to the item's JSON, then the answer.
// The engine parses the output as each token comes (one delta per patch line:
// llama-cpp-chat-format-scripted.test.ts); the gateway merges the deltas that reach it in one event-loop tick, so how many
// events the client sees depends on timing, and the wire check counts none.
import { existsSync } from "node:fs";
import OpenAI from "openai";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { startSparkServe, type SparkServeProcess } from "../clients/support/spark-serve-process.ts";
import {
  BUGGY_FILE,
  FINAL_ANSWER,
  PATCH,
  ensureQwen3CoderPatchingModel,
} from "../support/patching-agent-script.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;

const tools: OpenAI.Responses.Tool[] = [
  {
    type: "function",
    name: "read_file",
    description: "Read a file of the workspace.",
    strict: false,
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    type: "function",
    name: "apply_patch",
    description: "Edit files with a patch.",
    strict: false,
    parameters: { type: "object", properties: { patch: { type: "string" } }, required: ["patch"] },
  },
];

interface Round {
  deltas: string[];
  call: { callId: string; name: string; arguments: string } | undefined;
  text: string;
  status: string | undefined;
}

describe.skipIf(!ready)("/v1/responses on a Qwen3-Coder model through spark serve", () => {
  let server: SparkServeProcess | undefined;
  let client: OpenAI;
  beforeAll(async () => {
    const modelPath = await ensureQwen3CoderPatchingModel();
    server = await startSparkServe(
      `default_model = "coder"\n[models.coder]\nengine = "llama-cpp"\n` +
        `path = ${JSON.stringify(modelPath)}\nthreads = 1\nsequences = 1\n`,
    );
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  async function round(input: ResponseInputItem[]): Promise<Round> {
    const stream = await client.responses.create({
      model: "coder",
      input,
      tools,
      stream: true,
    });
    const result: Round = { deltas: [], call: undefined, text: "", status: undefined };
    for await (const event of stream) {
      if (event.type === "response.function_call_arguments.delta") result.deltas.push(event.delta);
      if (event.type === "response.output_text.delta") result.text += event.delta;
      if (event.type === "response.output_item.done" && event.item.type === "function_call") {
        const { call_id: callId, name, arguments: callArguments } = event.item;
        result.call = { callId, name, arguments: callArguments };
      }
      if (event.type === "response.completed") result.status = event.response.status;
    }
    return result;
  }

  it("streams each call's arguments as deltas that add up to the call's JSON", async () => {
    const conversation: ResponseInputItem[] = [
      { role: "user", content: "Fix the bug in src/add.ts." },
    ];
    const read = await round(conversation);
    expect(read.call?.name, server?.log()).toBe("read_file");
    expect(JSON.parse(read.call?.arguments ?? "")).toEqual({ path: "src/add.ts" });
    expect(read.deltas.join("")).toBe(read.call?.arguments);
    conversation.push(
      {
        type: "function_call",
        call_id: "call_1",
        name: "read_file",
        arguments: read.call?.arguments ?? "",
      },
      { type: "function_call_output", call_id: "call_1", output: `1\t${BUGGY_FILE.trimEnd()}` },
    );

    const patch = await round(conversation);
    expect(patch.call?.name, server?.log()).toBe("apply_patch");
    expect(JSON.parse(patch.call?.arguments ?? "")).toEqual({ patch: PATCH });
    expect(patch.deltas.length).toBeGreaterThan(0);
    expect(patch.deltas.join("")).toBe(patch.call?.arguments);
    expect(patch.status).toBe("completed");
    conversation.push(
      {
        type: "function_call",
        call_id: "call_2",
        name: "apply_patch",
        arguments: patch.call?.arguments ?? "",
      },
      {
        type: "function_call_output",
        call_id: "call_2",
        output: "Patch applied:\nM src/add.ts (+1 -1)",
      },
    );

    const answer = await round(conversation);
    expect(answer.call).toBeUndefined();
    expect(answer.text).toBe(FINAL_ANSWER);
  }, 240_000);
});
