// The embedded engine under Qwen3-Coder's chat format (per-argument XML calls, its real template)
// on a turn-scripted model: the patch's call streams as each of its lines is written, and a call
// the token limit cuts stays open (no end event) with the finish reason "length", as the
// <tool_call> jobs leave one, instead of a finished call whose arguments do not parse. And on
// Qwen3's format, whose lazy trigger is the text `<tool_call>\n`: a token that completes the
// trigger and goes on with text the grammar refuses ends that request with an error, where
// llama.cpp's throw from the grammar's replay ended the whole process; and a call written inside
// <think> stays reasoning (llama-server's lazy grammar sleeps between the thinking tags), so only
// the call after </think> is one, also where the prompt opened the block (QwQ, Qwen3.5), and
// Qwen3.5's <tool_call>, one of llama.cpp's end tags for it, ends the block and starts the call.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest, ToolDefinition } from "../../src/engines/engine.ts";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { BUGGY_FILE, ensureQwen3CoderPatchingModel } from "../support/patching-agent-script.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { llamaModelsFolder } from "./support/family-vocab-gguf.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;

const tools: ToolDefinition[] = ["read_file:path", "apply_patch:patch"].map((entry) => {
  const [name = "", argument = ""] = entry.split(":");
  return {
    name,
    description: `The ${name} tool.`,
    parameters: {
      type: "object",
      properties: { [argument]: { type: "string" } },
      required: [argument],
    },
  };
});

/** The agent's second round: the file was read, so the model writes its patch. */
function afterRead(maxOutputTokens?: number): EngineRequest {
  return {
    messages: [
      { role: "user", content: "Fix the bug in src/add.ts." },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"src/add.ts"}' }],
      },
      { role: "tool", toolCallId: "call_1", name: "read_file", content: BUGGY_FILE },
    ],
    tools,
    sampling: maxOutputTokens === undefined ? {} : { maxOutputTokens },
  };
}

describe.skipIf(!ready)("llama-cpp engine on a turn-scripted Qwen3-Coder model", () => {
  let engine: LlamaCppEngine | undefined;
  beforeAll(async () => {
    engine = await createLlamaCppEngine({
      modelPath: await ensureQwen3CoderPatchingModel(),
      threads: 1,
      sequences: 1,
      contextSize: 4096,
    });
  }, 120_000);
  afterAll(async () => {
    await engine?.dispose();
  });
  const started = (): LlamaCppEngine => {
    if (engine === undefined) throw new Error("the engine did not load");
    return engine;
  };

  it("streams the patch's call as each of its lines is written", async () => {
    const result = await collectStream(started().stream(afterRead()));
    const deltas = result.events.flatMap((event) =>
      event.type === "tool-call-delta" ? [event.argumentsDelta] : [],
    );
    // Each token the model wrote (the call's opening, then each line of the patch) is a delta.
    expect(deltas).toEqual([
      '{"patch":"',
      "*** Begin Patch",
      "\\n*** Update File: src/add.ts\\n@@",
      "\\n-export const addNumbers = (a, b) => a - b;",
      "\\n+export const addNumbers = (a, b) => a + b;",
      "\\n*** End Patch",
      '"}',
    ]);
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls.map((call) => call.name)).toEqual(["apply_patch"]);
  });

  it("a call cut by the token limit is not ended: finish length, its arguments as far as they got", async () => {
    // <tool_call>, the function's opening, then the patch's first two tokens: cut mid-argument.
    const result = await collectStream(started().stream(afterRead(4)));
    expect(result.error).toBeUndefined();
    expect(result.finishReason).toBe("length");
    const types = result.events.map((event) => event.type);
    expect(types).toContain("tool-call-start");
    expect(types).not.toContain("tool-call-end");
    const deltas = result.events.flatMap((event) =>
      event.type === "tool-call-delta" ? [event.argumentsDelta] : [],
    );
    expect(deltas.join("")).toBe('{"patch":"*** Begin Patch\\n*** Update File: src/add.ts\\n@@');
  });
});

describe.skipIf(!ready)(
  "llama-cpp engine on a Qwen3 model whose call trigger ends mid-token",
  () => {
    it("ends that request with the grammar's error and goes on serving", async () => {
      const folder = await llamaModelsFolder(["qwen2"]);
      const template = await readFile(join(folder, "templates", "Qwen-Qwen3-0.6B.jinja"), "utf8");
      const engine = await createLlamaCppEngine({
        modelPath: await ensureTestModel({
          chatTemplate: template,
          turns: [
            {
              // `\nhere` completes the trigger `<tool_call>\n` (after the reasoning, where the
              // lazy grammar reads the output) and goes on where the grammar wants the call's JSON.
              tokens: [
                "\n",
                "<think>",
                "\nHm.\n",
                "</think>",
                "\n\nI could write ",
                "<tool_call>",
                "\nhere.",
                "<|im_end|>",
              ],
            },
          ],
        }),
        threads: 1,
        sequences: 1,
        contextSize: 2048,
      });
      try {
        const request: EngineRequest = {
          messages: [{ role: "user", content: "Hi" }],
          tools: tools.slice(0, 1),
          sampling: { temperature: 0, maxOutputTokens: 20 },
        };
        const failed = await collectStream(engine.stream(request));
        expect(failed.finishReason).toBe("error");
        expect(failed.error?.message).toMatch(
          /tool-call grammar refused the output at its trigger/,
        );
        // The process, the engine and its sequence are still there: the next request runs.
        const next = await collectStream(
          engine.stream({ ...request, tools: [], sampling: { maxOutputTokens: 3 } }),
        );
        expect(next.error).toBeUndefined();
        expect(next.usage?.outputTokens).toBeGreaterThan(0);
      } finally {
        await engine.dispose();
      }
    }, 120_000);
  },
);

describe.skipIf(!ready)(
  "llama-cpp engine on a Qwen3 model that writes a call inside its reasoning",
  () => {
    it("keeps the call written while thinking as reasoning and parses the call after </think>", async () => {
      const folder = await llamaModelsFolder(["qwen2"]);
      const template = await readFile(join(folder, "templates", "Qwen-Qwen3-0.6B.jinja"), "utf8");
      const engine = await createLlamaCppEngine({
        modelPath: await ensureTestModel({
          chatTemplate: template,
          turns: [
            {
              // The trigger's text `<tool_call>\n` inside <think>: llama-server's lazy grammar does
              // not read reasoning, so only the call after </think> is one.
              tokens: [
                "\n",
                "<think>",
                "\nMaybe <tool_call>\n" + '{"name": "read_file", "arguments": {"path": "a.ts"}}',
                "\n</tool_call>",
                "\nNo, b.ts.\n",
                "</think>",
                "\n\n",
                "<tool_call>",
                '\n{"name": "read_file", "arguments": {"path": "b.ts"}}\n',
                "</tool_call>",
                "<|im_end|>",
              ],
            },
          ],
        }),
        threads: 1,
        sequences: 1,
        contextSize: 2048,
      });
      try {
        const result = await collectStream(
          engine.stream({
            messages: [{ role: "user", content: "Read the file." }],
            tools: tools.slice(0, 1),
            sampling: { temperature: 0, maxOutputTokens: 40 },
          }),
        );
        expect(result.error).toBeUndefined();
        expect(result.reasoning).toContain('Maybe <tool_call>\n{"name": "read_file"');
        expect(result.reasoning).toContain("No, b.ts.");
        expect(
          result.toolCalls.map((call) => [call.name, JSON.parse(call.arguments) as unknown]),
        ).toEqual([["read_file", { path: "b.ts" }]]);
        expect(result.text).toBe("");
        expect(result.finishReason).toBe("tool_calls");
      } finally {
        await engine.dispose();
      }
    }, 120_000);
  },
);

/** One request on a model scripted with one turn under one of llama.cpp's templates. */
async function runOneTurn(templateFile: string, tokens: readonly string[]) {
  const folder = await llamaModelsFolder(["qwen2"]);
  const template = await readFile(join(folder, "templates", templateFile), "utf8");
  const engine = await createLlamaCppEngine({
    modelPath: await ensureTestModel({ chatTemplate: template, turns: [{ tokens }] }),
    threads: 1,
    sequences: 1,
    contextSize: 2048,
  });
  try {
    return await collectStream(
      engine.stream({
        messages: [{ role: "user", content: "Read the file." }],
        tools: tools.slice(0, 1),
        sampling: { temperature: 0, maxOutputTokens: 40 },
      }),
    );
  } finally {
    await engine.dispose();
  }
}

describe.skipIf(!ready)("llama-cpp engine on templates whose prompt opens <think>", () => {
  it("QwQ: a call written in the reasoning the prompt opened stays reasoning", async () => {
    // The prompt ends `<think>\n`: the block is open before the model writes a token.
    const result = await runOneTurn("Qwen-QwQ-32B.jinja", [
      "\n",
      "Maybe <tool_call>\n" + '{"name": "read_file", "arguments": {"path": "a.ts"}}',
      "\n</tool_call>",
      "\nNo, b.ts.\n",
      "</think>",
      "\n\n",
      "<tool_call>",
      '\n{"name": "read_file", "arguments": {"path": "b.ts"}}\n',
      "</tool_call>",
      "<|im_end|>",
    ]);
    expect(result.error).toBeUndefined();
    expect(result.reasoning).toContain("No, b.ts.");
    expect(
      result.toolCalls.map((call) => [call.name, JSON.parse(call.arguments) as unknown]),
    ).toEqual([["read_file", { path: "b.ts" }]]);
  }, 120_000);

  it("Qwen3.5: <tool_call> ends the reasoning (llama.cpp's end tags) and starts the call", async () => {
    const result = await runOneTurn("Qwen3.5-4B.jinja", [
      "\n",
      "I will read b.ts.",
      "<tool_call>",
      "\n<function=read_file>\n<parameter=path>\nb.ts\n</parameter>\n</function>\n",
      "</tool_call>",
      "<|im_end|>",
    ]);
    expect(result.error).toBeUndefined();
    expect(result.reasoning).toContain("I will read b.ts.");
    expect(
      result.toolCalls.map((call) => [call.name, JSON.parse(call.arguments) as unknown]),
    ).toEqual([["read_file", { path: "b.ts" }]]);
    expect(result.text).toBe("");
  }, 120_000);

  it("Qwen3.5: the <tool_call> that ends the reasoning is fed to the grammar, which then holds the output to a call", async () => {
    // `\nhere.` and the turn's end are no call: the grammar refuses them, and the output runs to
    // the token limit. Without the end tag fed to it the grammar never starts and the turn ends.
    const result = await runOneTurn("Qwen3.5-4B.jinja", [
      "\n",
      "Hm.",
      "<tool_call>",
      "\nhere.",
      "<|im_end|>",
    ]);
    expect(result.error).toBeUndefined();
    expect(result.reasoning).toBe("Hm.");
    expect(result.finishReason).toBe("length");
  }, 120_000);
});
