// Grammar-constrained tool calls on the embedded engine: with tool_choice required, the noise
// model still produces a call that parses and names a real tool, because the grammar allows nothing else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest, ToolDefinition } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";

const tools: ToolDefinition[] = [
  {
    name: "list_files",
    description: "List files",
    parameters: z.toJSONSchema(z.object({ recursive: z.boolean(), depth: z.enum(["one", "two"]) })),
  },
  {
    name: "read_file",
    description: "Read a file",
    parameters: z.toJSONSchema(z.object({ path: z.string().max(12) })),
  },
];

describe("llama-cpp engine tool calls", () => {
  let engine: LlamaCppEngine;
  beforeAll(async () => {
    engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 1,
      contextSize: 2048,
    });
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  const request = (toolChoice: EngineRequest["toolChoice"]): EngineRequest => ({
    messages: [{ role: "user", content: "List the files." }],
    tools,
    toolChoice,
    // Qwen's format allows call after call, and the noise model never ends its turn by itself:
    // with one call allowed, the grammar ends it.
    parallelToolCalls: false,
    sampling: { temperature: 0, maxOutputTokens: 200 },
  });

  it("tool_choice required yields one call whose arguments satisfy the tool's schema", async () => {
    const result = await collectStream(engine.stream(request("required")));
    expect(result.error).toBeUndefined();
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(["list_files", "read_file"]).toContain(call?.name);
    const parameters =
      call?.name === "list_files"
        ? z.object({ recursive: z.boolean(), depth: z.enum(["one", "two"]) })
        : z.object({ path: z.string().max(12) });
    expect(parameters.safeParse(JSON.parse(call?.arguments ?? "null")).success).toBe(true);
    const types = result.events.map((event) => event.type);
    expect(types.indexOf("tool-call-start")).toBeLessThan(types.indexOf("tool-call-end"));
  });

  it("a named tool_choice calls that tool", async () => {
    const result = await collectStream(engine.stream(request({ name: "list_files" })));
    expect(result.toolCalls.map((call) => call.name)).toEqual(["list_files"]);
  });

  it("a tool_choice naming an unknown tool is invalid_request", async () => {
    const result = await collectStream(engine.stream(request({ name: "rm_rf" })));
    expect(result.error?.code).toBe("invalid_request");
  });
});
