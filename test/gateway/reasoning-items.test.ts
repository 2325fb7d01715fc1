// Reasoning through `spark serve` with the openai SDK (scripted engine): a Responses `reasoning`
// item streamed as reasoning_text events and never as answer text, passed back to the engine
// through a chain and as an input item; Chat Completions' `reasoning_content`; and the
// openai-compatible engine carrying an upstream's reasoning (another `spark serve`) as reasoning.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSparkServe, type SparkServeProcess } from "../clients/support/spark-serve-process.ts";

const THOUGHT = "The user wants the entry point. I will read src/index.ts first.";
const readFileTool = {
  type: "function" as const,
  name: "read_file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  strict: false,
};

const script = [
  { reasoning: THOUGHT, toolCalls: [{ name: "read_file", arguments: { path: "src/index.ts" } }] },
  // The chain hands the first turn's reasoning back with its call.
  { expect: { anyReasoningIncludes: "I will read src/index.ts" }, text: "It exports main." },
  // A reasoning item sent as input reaches the engine with the assistant turn after it.
  { expect: { anyReasoningIncludes: "an earlier thought" }, text: "Still main." },
  { reasoning: "Two plus two.", text: "4" },
  { reasoning: "Two plus three.", text: "5" },
];
const upstreamScript = [{ reasoning: "Upstream thinks first.", text: "Upstream answers." }];

describe("reasoning through spark serve", () => {
  let folder: string;
  let server: SparkServeProcess;
  let upstream: SparkServeProcess;
  let front: SparkServeProcess;
  let client: OpenAI;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "spark-reasoning-"));
    const scriptPath = path.join(folder, "script.jsonl");
    const upstreamPath = path.join(folder, "upstream.jsonl");
    await writeFile(scriptPath, script.map((line) => JSON.stringify(line)).join("\n"));
    await writeFile(upstreamPath, upstreamScript.map((line) => JSON.stringify(line)).join("\n"));
    const scripted = (file: string): string =>
      `default_model = "replay"\n[models.replay]\nengine = "script"\npath = ${JSON.stringify(file)}\n`;
    [server, upstream] = await Promise.all([
      startSparkServe(scripted(scriptPath)),
      startSparkServe(scripted(upstreamPath)),
    ]);
    front = await startSparkServe(
      `default_model = "remote"\n[models.remote]\nengine = "openai-compatible"\nbase_url = "${upstream.url}/v1"\nmodel = "replay"\n`,
    );
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([server, upstream, front].map(async (process) => process?.stop()));
    await rm(folder, { recursive: true, force: true });
  });

  it("streams reasoning as a reasoning item before the call, and chains it back", async () => {
    const stream = await client.responses.create({
      model: "replay",
      input: "Open the entry point.",
      tools: [readFileTool],
      stream: true,
    });
    const types: string[] = [];
    let reasoningFromDeltas = "";
    let answerFromDeltas = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.reasoning_text.delta") reasoningFromDeltas += event.delta;
      if (event.type === "response.output_text.delta") answerFromDeltas += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(reasoningFromDeltas).toBe(THOUGHT);
    expect(answerFromDeltas).toBe("");
    expect(types.slice(2, 5)).toEqual([
      "response.output_item.added",
      "response.content_part.added",
      "response.reasoning_text.delta",
    ]);
    const afterReasoning = types.slice(types.lastIndexOf("response.reasoning_text.delta") + 1);
    expect(afterReasoning.slice(0, 4)).toEqual([
      "response.reasoning_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
    ]);
    if (completed === undefined) throw new Error("no response.completed");
    expect(completed.output.some((item) => item.type === "message")).toBe(false);
    expect(completed.output[0]).toMatchObject({
      type: "reasoning",
      summary: [],
      content: [{ type: "reasoning_text", text: THOUGHT }],
      status: "completed",
    });
    const call = completed.output[1];
    if (call?.type !== "function_call") throw new Error("no function call after the reasoning");

    const stored = await client.responses.retrieve(completed.id);
    expect(stored.output[0]).toMatchObject({ type: "reasoning" });

    const answer = await client.responses.create({
      model: "replay",
      previous_response_id: completed.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "export main" }],
      tools: [readFileTool],
    });
    expect(answer.error).toBeNull();
    expect(answer.output_text).toBe("It exports main.");
  });

  it("accepts a reasoning item in the input and passes it to the engine", async () => {
    const answer = await client.responses.create({
      model: "replay",
      input: [
        { role: "user", content: "Open the entry point." },
        {
          type: "reasoning",
          id: "rs_from_another_server",
          summary: [],
          content: [{ type: "reasoning_text", text: "an earlier thought" }],
        },
        {
          type: "function_call",
          call_id: "call_1",
          name: "read_file",
          arguments: '{"path":"src/index.ts"}',
        },
        { type: "function_call_output", call_id: "call_1", output: "export main" },
      ],
      tools: [readFileTool],
    });
    expect(answer.error).toBeNull();
    expect(answer.output_text).toBe("Still main.");
  });

  it("streams Chat Completions reasoning as reasoning_content, apart from content", async () => {
    const stream = await client.chat.completions.create({
      model: "replay",
      messages: [{ role: "user", content: "2+2?" }],
      stream: true,
    });
    let reasoning = "";
    let content = "";
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string };
      reasoning += delta?.reasoning_content ?? "";
      content += delta?.content ?? "";
    }
    expect(reasoning).toBe("Two plus two.");
    expect(content).toBe("4");

    const completion = await client.chat.completions.create({
      model: "replay",
      messages: [{ role: "user", content: "2+3?" }],
    });
    const message = completion.choices[0]?.message as {
      content: string;
      reasoning_content?: string;
    };
    expect(message.content).toBe("5");
    expect(message.reasoning_content).toBe("Two plus three.");
  });

  it("carries an openai-compatible upstream's reasoning_content as a reasoning item", async () => {
    const frontClient = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const response = await frontClient.responses.create({ model: "remote", input: "Hello" });
    expect(response.error).toBeNull();
    expect(response.output_text).toBe("Upstream answers.");
    expect(response.output[0]).toMatchObject({
      type: "reasoning",
      content: [{ type: "reasoning_text", text: "Upstream thinks first." }],
    });
  });
});
