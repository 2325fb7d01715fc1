// The recorded WebSocket frames are OpenAI's shapes: every event type is one the openai SDK's
// ResponsesServerEvent names (the list is checked by tsc), each carries the fields the SDK type
// requires for it, and error frames are WebSocket mode's `{type, status, error: {code, message}}`.
import { readdirSync } from "node:fs";
import type { ResponsesServerEvent } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { readFrames, responsesWsFixtures } from "./responses-ws-upstream.ts";

/** The fields each recorded event type must carry, as the SDK's types require them. */
const requiredFields = {
  "response.created": ["response", "sequence_number"],
  "response.in_progress": ["response", "sequence_number"],
  "response.completed": ["response", "sequence_number"],
  "response.failed": ["response", "sequence_number"],
  "response.output_item.added": ["item", "output_index", "sequence_number"],
  "response.output_item.done": ["item", "output_index", "sequence_number"],
  "response.content_part.added": ["item_id", "output_index", "content_index", "part"],
  "response.content_part.done": ["item_id", "output_index", "content_index", "part"],
  "response.output_text.delta": ["item_id", "output_index", "content_index", "delta", "logprobs"],
  "response.output_text.done": ["item_id", "output_index", "content_index", "text", "logprobs"],
  "response.function_call_arguments.delta": ["item_id", "output_index", "delta"],
  "response.function_call_arguments.done": ["item_id", "output_index", "arguments"],
} satisfies Partial<Record<ResponsesServerEvent["type"], string[]>>;

const fixtures = readdirSync(responsesWsFixtures).filter((name) => name.endsWith(".jsonl"));

describe("recorded Responses WebSocket frames", () => {
  it.each(fixtures)("%s has OpenAI's event shapes", (fixture) => {
    for (const line of readFrames(fixture)) {
      const frame = JSON.parse(line) as Record<string, unknown>;
      if (frame.type === "error") {
        expect(frame).toMatchObject({
          status: expect.any(Number) as number,
          error: { code: expect.any(String) as string, message: expect.any(String) as string },
        });
        continue;
      }
      const fields = requiredFields[String(frame.type) as keyof typeof requiredFields];
      expect(fields, `unknown event type ${String(frame.type)}`).toBeDefined();
      for (const field of fields ?? [])
        expect(frame, `${String(frame.type)}.${field}`).toHaveProperty(field);
    }
  });
});
