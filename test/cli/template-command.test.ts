// `spark template render` and `spark template parse` as a user runs them (bin/spark.js in a child
// process, the request or the model's output on standard input) on a vocab-only GGUF carrying
// Qwen3-Coder's real template: render prints exactly the prompt the engine renders for the same
// request, parse prints the gateway's output items for a raw per-argument XML call.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import { openModelChatFormat } from "../../src/engines/llama-cpp/chat-format/open-model-chat-format.ts";
import { toEngineChatRequest } from "../../src/gateway/http/chat-request.ts";
import { chatCompletionRequestSchema } from "../../src/protocol/chat-completions.ts";
import { chatFamilies } from "../engines/support/chat-families.ts";
import { llamaModelsFolder, writeFamilyVocabGguf } from "../engines/support/family-vocab-gguf.ts";
import type { RunResult } from "./support/run-spark-cli.ts";

const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));

/** `spark <args>` with `input` on standard input. */
function runSpark(args: string[], input: string, cwd: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SPARK, ...args], { cwd, timeout: 60_000 });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

const addon = loadChatFormatAddon();
if (addon.addon === undefined) {
  if (process.env.CI === "true")
    throw new Error(`spark template must be tested in CI, but ${addon.reason}.`);
  console.log(`spark template tests skipped: ${addon.reason}`);
}

const family = chatFamilies.find((candidate) => candidate.name === "Qwen3-Coder");
if (family === undefined) throw new Error("chat-families.ts lost Qwen3-Coder");

const patch =
  "*** Begin Patch\n*** Update File: src/add.ts\n@@\n-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;\n*** End Patch";
const tools = [
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a file of the workspace.",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
  {
    type: "function",
    function: {
      name: "apply_patch",
      description: "Apply a patch to files of the workspace.",
      parameters: {
        type: "object",
        properties: { patch: { type: "string" } },
        required: ["patch"],
      },
    },
  },
];
const request = {
  model: "local",
  messages: [
    { role: "system", content: "You are Spark, a coding agent." },
    { role: "user", content: "Fix the bug in src/add.ts." },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"src/add.ts"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "1\texport const add = (a, b) => a - b;\n" },
  ],
  tools,
};

describe.skipIf(addon.addon === undefined)("spark template render | parse", () => {
  let directory: string;
  let gguf: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "spark-template-cli-"));
    const models = await llamaModelsFolder([family.vocab]);
    gguf = join(directory, "qwen3-coder-vocab.gguf");
    await writeFamilyVocabGguf(
      {
        ...family,
        vocab: join(models, `ggml-vocab-${family.vocab}.gguf`),
        template: await readFile(join(models, "templates", family.template), "utf8"),
      },
      gguf,
    );
  }, 120_000);
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("render prints exactly the prompt the engine renders for the request", async () => {
    const result = await runSpark(
      ["template", "render", "--model", gguf],
      JSON.stringify(request),
      directory,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);

    const opened = await openModelChatFormat(gguf);
    if (opened.format === undefined) throw new Error(opened.reason);
    const engineRequest = toEngineChatRequest(chatCompletionRequestSchema.parse(request), "local");
    const rendered = opened.format.render({
      messages: engineRequest.messages,
      ...(engineRequest.tools === undefined ? {} : { tools: engineRequest.tools }),
    });
    expect(result.stdout).toBe(rendered.prompt);
    // Qwen3-Coder's own shapes: per-argument XML for the past call, the tool's text as it is.
    expect(result.stdout).toContain(
      "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/add.ts\n</parameter>\n</function>\n</tool_call>",
    );
    expect(result.stdout).toContain("1\texport const add = (a, b) => a - b;\n");
    expect(result.stdout.endsWith("<|im_start|>assistant\n")).toBe(true);
  }, 60_000);

  it("parse prints a function_call item with a call_id for the model's raw XML call", async () => {
    const requestFile = join(directory, "request.json");
    await writeFile(requestFile, JSON.stringify(request));
    const output = `Let me fix it.\n<tool_call>\n<function=apply_patch>\n<parameter=patch>\n${patch}\n</parameter>\n</function>\n</tool_call>`;
    const result = await runSpark(
      ["template", "parse", "--model", gguf, "--request", requestFile],
      output,
      directory,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as {
      format: string;
      output: { type: string; call_id?: string; name?: string; arguments?: string }[];
    };
    expect(printed.output.map((item) => item.type)).toEqual(["message", "function_call"]);
    const call = printed.output[1];
    expect(call?.name).toBe("apply_patch");
    expect(call?.call_id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(JSON.parse(call?.arguments ?? "")).toEqual({ patch });
  }, 60_000);
});
