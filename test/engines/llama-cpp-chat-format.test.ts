// The embedded engine under the model's own chat format (issue 33), on the project's test models
// carrying a family's real template (llama.cpp's models/templates, from the bundle node-llama-cpp
// ships): the prompt after a tool result (no empty assistant turn, the tool's text as it is), a
// forced call in the family's own syntax with no second copy of the weights, the call's arguments
// streamed as deltas, and a format's own call id kept through parse and render.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage, EngineEvent, ToolDefinition } from "../../src/engines/engine.ts";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import { renderChatFormatPrompt } from "../../src/engines/llama-cpp/chat-format/chat-format-prompt.ts";
import { ParsedMessageEvents } from "../../src/engines/llama-cpp/chat-format/parsed-message-events.ts";
import { openModelChatFormat } from "../../src/engines/llama-cpp/chat-format/open-model-chat-format.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { loadModel } from "../../src/engines/llama-cpp/load-model.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { chatFamilies } from "./support/chat-families.ts";
import { llamaModelsFolder, writeFamilyVocabGguf } from "./support/family-vocab-gguf.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;
const describeReady = ready ? describe : describe.skip;

const readFileTool: ToolDefinition = {
  name: "read_file",
  description: "Read a file of the workspace.",
  parameters: {
    type: "object",
    properties: { path: { type: "string", maxLength: 12 } },
    required: ["path"],
  },
};
const fileText = '1\texport const add = (a, b) => a - b;\n2\t// "quoted" \\ text\n';

function afterToolResult(id: string): ChatMessage[] {
  return [
    { role: "system", content: "You are Spark." },
    { role: "user", content: "Fix the bug in src/add.ts." },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id, name: "read_file", arguments: '{"path":"src/add.ts"}' }],
    },
    { role: "tool", toolCallId: id, name: "read_file", content: fileText },
  ];
}

async function familyTemplate(name: string): Promise<{ source: string; folder: string }> {
  const family = chatFamilies.find((candidate) => candidate.name === name);
  if (family === undefined) throw new Error(`no family ${name}`);
  const folder = await llamaModelsFolder([family.vocab]);
  return { source: await readFile(join(folder, "templates", family.template), "utf8"), folder };
}

describeReady("llama-cpp engine under the model's chat format", () => {
  let qwen: LlamaCppEngine;
  let llama: LlamaCppEngine;
  beforeAll(async () => {
    qwen = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 1,
      contextSize: 2048,
    });
    const { source } = await familyTemplate("Llama 3.1");
    llama = await createLlamaCppEngine({
      modelPath: await ensureTestModel({ chatTemplate: source }),
      threads: 1,
      sequences: 1,
      contextSize: 4096,
    });
  });
  afterAll(async () => {
    await qwen?.dispose();
    await llama?.dispose();
  });

  it("(a, b) after a tool result the prompt has no empty assistant turn and holds the tool's own text", () => {
    expect(qwen.chatPath).toBe("chat-format");
    const prompt = qwen.renderChatPrompt({
      messages: afterToolResult("call_1"),
      tools: [readFileTool],
    });
    expect(prompt).not.toContain("<|im_start|>assistant\n<|im_end|>");
    expect(prompt).toContain(`<tool_response>\n${fileText}\n</tool_response>`);
    expect(prompt.endsWith("</tool_response><|im_end|>\n<|im_start|>assistant\n")).toBe(true);
  });

  it("(d, e) a Llama 3.1 model's forced call is its JSON, on the native loop alone, arguments streamed as deltas", async () => {
    // No LlamaChat and no second copy of the weights: node-llama-cpp holds the vocabulary only.
    expect(llama.chatPath).toBe("chat-format");
    expect(llama.toolDecodeLoop).toBe("native");
    expect(llama.nodeLlamaCppHolds).toBe("vocabulary");
    const result = await collectStream(
      llama.stream({
        messages: [{ role: "user", content: "Read a file." }],
        tools: [readFileTool],
        toolChoice: "required",
        sampling: { temperature: 0, maxOutputTokens: 600 },
      }),
    );
    expect(result.error).toBeUndefined();
    expect(
      result.finishReason,
      JSON.stringify({ calls: result.toolCalls, text: result.text }),
    ).toBe("tool_calls");
    expect(result.text).toBe("");
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(call?.name).toBe("read_file");
    const parsed = JSON.parse(call?.arguments ?? "") as { path: string };
    expect(typeof parsed.path).toBe("string");
    const deltas = result.events.filter(
      (event): event is Extract<EngineEvent, { type: "tool-call-delta" }> =>
        event.type === "tool-call-delta",
    );
    // The arguments came as they were written, in pieces that add up to the whole.
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((delta) => delta.argumentsDelta).join("")).toBe(call?.arguments);
    // The prompt the call followed is Llama 3.1's, not ChatML with a <tool_call> section.
    const prompt = llama.renderChatPrompt({
      messages: [{ role: "user", content: "Read a file." }],
      tools: [readFileTool],
      toolChoice: "required",
    });
    expect(prompt).toContain("<|start_header_id|>assistant<|end_header_id|>\n\n");
    expect(prompt).not.toContain("<tool_call>");
  });

  it("a forced call is compact JSON: no newlines or tabs between its tokens for the model to spend its budget on", async () => {
    // llama.cpp's `space` rule allows up to 22 whitespace characters in every gap of the call;
    // the noise model, whose ties go to the tab, wrote `{\n\t "city"\n :…` under it.
    const result = await collectStream(
      qwen.stream({
        messages: [
          { role: "system", content: "You are a terse assistant." },
          { role: "user", content: "What is the weather in Paris?" },
        ],
        tools: [
          {
            name: "get_weather",
            description: "The weather in a city",
            parameters: {
              type: "object",
              properties: { city: { type: "string", maxLength: 24 } },
              required: ["city"],
            },
          },
        ],
        toolChoice: "required",
        sampling: { temperature: 0, maxOutputTokens: 200 },
      }),
    );
    expect(result.error).toBeUndefined();
    // Greedy noise never ends its turn after a call (Qwen's format allows several), so only the
    // calls it finished are read.
    const finished = result.toolCalls.filter((call) => /\}\s*$/.test(call.arguments));
    expect(finished.length).toBeGreaterThan(1);
    for (const call of finished) {
      expect(call.name).toBe("get_weather");
      expect(call.arguments).not.toMatch(/[\n\t]| {2}/);
      expect(Object.keys(JSON.parse(call.arguments) as object)).toEqual(["city"]);
    }
  });
  it("parallel_tool_calls false: a forced call's grammar allows one call, so the turn ends after it", async () => {
    // With Qwen's own grammar (several calls allowed) the noise model opens call after call until
    // its budget ends; with one call allowed the grammar ends the turn.
    const result = await collectStream(
      qwen.stream({
        messages: [{ role: "user", content: "What is the weather in Paris?" }],
        tools: [
          {
            name: "get_weather",
            description: "The weather in a city",
            parameters: {
              type: "object",
              properties: { city: { type: "string", maxLength: 24 } },
              required: ["city"],
            },
          },
        ],
        toolChoice: "required",
        parallelToolCalls: false,
        sampling: { temperature: 0, maxOutputTokens: 200 },
      }),
    );
    expect(result.error).toBeUndefined();
    expect(
      result.finishReason,
      JSON.stringify({ calls: result.toolCalls, text: result.text }),
    ).toBe("tool_calls");
    expect(result.toolCalls).toHaveLength(1);
    expect(Object.keys(JSON.parse(result.toolCalls[0]?.arguments ?? "") as object)).toEqual([
      "city",
    ]);
  });
});

describeReady("a chat format's own call ids", () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "spark-chat-format-ids-"));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("(c) Kimi-K2's functions.read_file:0 is the streamed call's id and is rendered back with its result", async () => {
    const family = chatFamilies.find((candidate) => candidate.name === "Kimi-K2");
    if (family === undefined) throw new Error("no Kimi-K2 family");
    const { source, folder } = await familyTemplate("Kimi-K2");
    const path = join(directory, "kimi.gguf");
    await writeFamilyVocabGguf(
      {
        vocab: join(folder, `ggml-vocab-${family.vocab}.gguf`),
        template: source,
        eosToken: family.eosToken,
      },
      path,
    );
    const opened = await openModelChatFormat(path);
    if (opened.format === undefined) throw new Error(opened.reason);
    const loaded = await loadModel(path, { gpu: false, vocabularyOnly: true });
    try {
      const request = {
        messages: [{ role: "user" as const, content: "Read src/add.ts." }],
        tools: [readFileTool],
      };
      const chat = renderChatFormatPrompt(opened.format, loaded.model, request, request.tools);
      const output =
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0" +
        '<|tool_call_argument_begin|>{"path": "src/add.ts"}<|tool_call_end|><|tool_calls_section_end|>';
      const events = new ParsedMessageEvents(() => "call_generated");
      const streamed: EngineEvent[] = [];
      // As the engine streams it: the output so far, a few characters more each time.
      for (let end = 8; end < output.length; end += 8)
        streamed.push(...events.update(chat.parser.parse(output.slice(0, end), true)));
      streamed.push(...events.finish(chat.parser.parse(output, false)));
      const ended = streamed.filter((event) => event.type === "tool-call-end");
      expect(ended).toEqual([
        {
          type: "tool-call-end",
          id: "functions.read_file:0",
          name: "read_file",
          arguments: '{"path": "src/add.ts"}',
        },
      ]);
      expect(streamed.find((event) => event.type === "tool-call-start")).toMatchObject({
        id: "functions.read_file:0",
      });
      // The id the client sends back with the result is the one the template prints.
      const next = opened.format.render({
        messages: afterToolResult("functions.read_file:0"),
        tools: [readFileTool],
      });
      expect(next.prompt).toContain("functions.read_file:0");
    } finally {
      await loaded.model.dispose();
    }
  });
});
