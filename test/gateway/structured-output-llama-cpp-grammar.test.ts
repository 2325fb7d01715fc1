// Issue 33: through the real `spark serve` on the embedded engine (tiny GGUF, chat-format path),
// what zod's .regex(), .uuid() and .int().min().max() write is enforced by llama.cpp's grammar
// (responses.parse answers, and the answer keeps every constraint), and a keyword that grammar
// cannot keep is a 400 whose param names the field on both APIs.
import OpenAI from "openai";
import { zodTextFormat } from "openai/helpers/zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startSparkServe, type SparkServeProcess } from "../clients/support/spark-serve-process.ts";
import { ensureTestModel } from "../support/test-model.ts";

let server: SparkServeProcess;
const model = "tiny";

beforeAll(async () => {
  const modelPath = await ensureTestModel();
  server = await startSparkServe(
    [
      `default_model = "${model}"`,
      `[models.${model}]`,
      `engine = "llama-cpp"`,
      `path = "${modelPath}"`,
      `context_size = 2048`,
      `sequences = 1`,
      `threads = 1`,
      `[serve]`,
      `api_keys = ["sk-alice"]`,
      ``,
    ].join("\n"),
  );
}, 60_000);
afterAll(() => server?.stop());

function client(): OpenAI {
  return new OpenAI({ apiKey: "sk-alice", baseURL: `${server.url}/v1`, maxRetries: 0 });
}

const ticket = z.object({
  code: z.string().regex(/^[a-z]{3}-[0-9]{2}$/),
  id: z.uuid(),
  digit: z.number().int().min(0).max(9),
});

/** multipleOf on a number: llama.cpp's converter does not read it. */
const refusedSchema = {
  type: "object",
  properties: { count: { type: "number", multipleOf: 5 } },
  required: ["count"],
  additionalProperties: false,
};

describe("structured output under llama.cpp's grammar through spark serve", () => {
  it("responses.parse with a zod regex, uuid and bounded integer answers a value that keeps them", async () => {
    const response = await client().responses.parse({
      model,
      input: "Answer in JSON.",
      temperature: 0,
      max_output_tokens: 200,
      text: { format: zodTextFormat(ticket, "ticket") },
    });
    expect(response.status).toBe("completed");
    const parsed = response.output_parsed;
    expect(parsed, response.output_text).not.toBeNull();
    expect(ticket.parse(parsed)).toEqual(parsed);
  });

  it("a keyword the grammar cannot keep is a 400 with param text.format or response_format", async () => {
    const responses = client().responses.create({
      model,
      input: "Answer in JSON.",
      text: { format: { type: "json_schema", name: "count", schema: refusedSchema, strict: true } },
    });
    const refusal: unknown = await responses.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ status: 400, param: "text.format" });
    expect(String((refusal as Error).message)).toContain(
      "multipleOf at #/properties/count/multipleOf",
    );
    const chat = client().chat.completions.create({
      model,
      messages: [{ role: "user", content: "Answer in JSON." }],
      response_format: {
        type: "json_schema",
        json_schema: { name: "count", schema: refusedSchema, strict: true },
      },
    });
    await expect(chat).rejects.toMatchObject({ status: 400, param: "response_format" });
  });
});
