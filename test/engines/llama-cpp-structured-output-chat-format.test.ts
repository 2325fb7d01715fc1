// Structured output under llama.cpp's json-schema-to-grammar on the chat-format path (issue 33):
// on the project's tiny GGUF (noise weights, greedy) a schema with a pattern, a uuid and integer
// bounds is accepted and the answer keeps all three; what that converter would drop silently
// (multipleOf, a number's bounds, a pattern it cannot translate) is still refused by name.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest, JsonSchema } from "../../src/engines/engine.ts";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;
const describeReady = ready ? describe : describe.skip;

const ticketSchema: JsonSchema = {
  type: "object",
  properties: {
    code: { type: "string", pattern: "^[a-z]{3}-[0-9]{2}$" },
    id: { type: "string", format: "uuid" },
    digit: { type: "integer", minimum: 0, maximum: 9 },
  },
  required: ["code", "id", "digit"],
  additionalProperties: false,
};

function ask(schema: JsonSchema, name = "ticket"): EngineRequest {
  return {
    messages: [{ role: "user", content: "Answer in JSON." }],
    sampling: { temperature: 0, maxOutputTokens: 200 },
    outputFormat: { type: "json_schema", name, strict: true, schema },
  };
}

describeReady("structured output under llama.cpp's grammar (chat-format path)", () => {
  let engine: LlamaCppEngine;
  beforeAll(async () => {
    engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 1,
      contextSize: 2048,
    });
    expect(engine.chatPath).toBe("chat-format");
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  it("accepts pattern, format uuid and integer bounds, and the answer keeps all three", async () => {
    const request = ask(ticketSchema);
    expect(await engine.checkRequest(request)).toBeUndefined();
    const result = await collectStream(engine.stream(request));
    expect(result.error).toBeUndefined();
    expect(result.finishReason).toBe("stop");
    const answer = JSON.parse(result.text) as Record<string, unknown>;
    expect(Object.keys(answer).sort()).toEqual(["code", "digit", "id"]);
    expect(answer.code).toMatch(/^[a-z]{3}-[0-9]{2}$/);
    expect(answer.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    expect(Number.isInteger(answer.digit)).toBe(true);
    expect(answer.digit).toBeGreaterThanOrEqual(0);
    expect(answer.digit).toBeLessThanOrEqual(9);
  });

  it("refuses what llama.cpp would not enforce, naming each keyword and place", async () => {
    const request = ask(
      {
        type: "object",
        properties: {
          count: { type: "number", multipleOf: 5 },
          share: { type: "number", maximum: 1 },
          word: { type: "string", pattern: "^(?!x)[a-z]+$" },
          mail: { type: "string", format: "email" },
        },
      },
      "refused",
    );
    const checked = await engine.checkRequest(request);
    expect(checked?.code).toBe("invalid_request");
    expect(checked?.message).toContain("multipleOf at #/properties/count/multipleOf");
    expect(checked?.message).toContain("maximum at #/properties/share/maximum (integers only)");
    expect(checked?.message).toContain('pattern "^(?!x)[a-z]+$" at #/properties/word/pattern');
    expect(checked?.message).toContain('format "email" at #/properties/mail/format');
    const result = await collectStream(engine.stream(request));
    expect(result.events.map((event) => event.type)).toEqual(["usage", "timings", "finish"]);
    expect(result.error?.message).toBe(checked?.message);
  });
});
