// Structured output on the embedded engine, on the project's tiny GGUF (random weights): the
// grammar alone must make the answer JSON that fits the schema, on both decode loops; a schema it
// cannot enforce is refused before any output; tools beside a format follow the documented rule.
// (The contract's structured-output case runs on both loops in their contract files.)
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest, OutputFormat } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel, type EnsureTestModelOptions } from "../support/test-model.ts";

// The native loop where its addon is built (npm run build:native says why it is not).
const nativeBuilt = existsSync(defaultAddonPath);
const loops = nativeBuilt ? (["native", "node-llama-cpp"] as const) : (["node-llama-cpp"] as const);
const describeNative = nativeBuilt ? describe : describe.skip;

/** What generateObject users write; bounded strings so a noise model ends them. */
const answerSchema = z.object({
  city: z.string().max(10),
  count: z.number().int(),
  kind: z.enum(["rain", "sun"]),
  note: z.string().max(4).nullable(),
});

const answerFormat: OutputFormat = {
  type: "json_schema",
  name: "answer",
  strict: true,
  schema: z.toJSONSchema(answerSchema, { target: "draft-7" }),
};

const tool = {
  name: "set_mode",
  parameters: { type: "object", properties: { mode: { type: "string", enum: ["fast", "deep"] } } },
};

function ask(extra: Partial<EngineRequest> = {}): EngineRequest {
  return {
    messages: [{ role: "user", content: "Answer in JSON." }],
    sampling: { temperature: 0, maxOutputTokens: 160 },
    outputFormat: answerFormat,
    ...extra,
  };
}

async function openEngine(
  decodeLoop: "native" | "node-llama-cpp",
  model: EnsureTestModelOptions = {},
): Promise<LlamaCppEngine> {
  return createLlamaCppEngine({
    modelPath: await ensureTestModel(model),
    threads: 1,
    sequences: 2,
    contextSize: 2048,
    decodeLoop,
  });
}

describe.each(loops)("structured output on the %s decode loop", (decodeLoop) => {
  let engine: LlamaCppEngine;
  beforeAll(async () => {
    engine = await openEngine(decodeLoop);
    expect(engine.decodeLoop).toBe(decodeLoop);
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  it("a zod schema's answer parses with that schema, also when sampled at temperature 1", async () => {
    for (const temperature of [0, 1]) {
      const result = await collectStream(
        engine.stream(ask({ sampling: { temperature, seed: 7, maxOutputTokens: 160 } })),
      );
      expect(result.error).toBeUndefined();
      expect(result.finishReason).toBe("stop");
      expect(() => answerSchema.parse(JSON.parse(result.text)), result.text).not.toThrow();
    }
  });

  it("json_object answers one JSON object", async () => {
    const result = await collectStream(
      engine.stream(ask({ outputFormat: { type: "json_object" } })),
    );
    expect(result.finishReason).toBe("stop");
    const parsed: unknown = JSON.parse(result.text);
    expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)).toBe(true);
  });

  it("refuses a schema the grammar cannot enforce, before any output and in checkRequest", async () => {
    const request = ask({
      outputFormat: {
        type: "json_schema",
        name: "contact",
        // Neither grammar keeps multipleOf (llama.cpp's enforces a pattern: see the chat-format test).
        schema: { type: "object", properties: { count: { type: "number", multipleOf: 5 } } },
      },
    });
    const checked = await engine.checkRequest(request);
    expect(checked?.code).toBe("invalid_request");
    expect(checked?.message).toMatch(/multipleOf (5 )?at #\/properties\/count\/multipleOf/);
    const result = await collectStream(engine.stream(request));
    expect(result.events.map((event) => event.type)).toEqual(["usage", "timings", "finish"]);
    expect(result.error?.message).toBe(checked?.message);
  });

  it("a forced tool call is the whole answer: the format has no text to constrain", async () => {
    const result = await collectStream(
      engine.stream(ask({ tools: [tool], toolChoice: "required" })),
    );
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls[0]?.name).toBe("set_mode");
    expect(result.text).toBe("");
  });
});

describe("structured output beside tools the model may call (tool_choice auto)", () => {
  it("is refused on node-llama-cpp's loop, whose LlamaChat takes no grammar beside functions", async () => {
    const engine = await openEngine("node-llama-cpp");
    try {
      const result = await collectStream(engine.stream(ask({ tools: [tool] })));
      expect(result.error?.code).toBe("invalid_request");
      expect(result.error?.message).toMatch(/tools the model may call.*native decode loop/);
    } finally {
      await engine.dispose();
    }
  });

  describeNative("on the native loop the answer is calls or JSON in the format", () => {
    it("JSON when the model does not open a call", async () => {
      const engine = await openEngine("native");
      try {
        const result = await collectStream(engine.stream(ask({ tools: [tool] })));
        expect(result.finishReason).toBe("stop");
        expect(() => answerSchema.parse(JSON.parse(result.text)), result.text).not.toThrow();
      } finally {
        await engine.dispose();
      }
    });

    it("calls when the model opens one first (a scripted model: <tool_call> after the prompt)", async () => {
      const engine = await openEngine("native", { successors: { "\n": "<tool_call>" } });
      try {
        const result = await collectStream(engine.stream(ask({ tools: [tool] })));
        // It opens another call after each one's closing line break, until max tokens.
        expect(["tool_calls", "length"]).toContain(result.finishReason);
        expect(result.text).toBe("");
        expect(result.toolCalls[0]?.name).toBe("set_mode");
      } finally {
        await engine.dispose();
      }
    });
  });
});
