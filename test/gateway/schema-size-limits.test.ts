// Issue 32, finding 6 and the grammar part of 8: a structured-output or tool schema over the size
// limits is a 400 naming the limit and its field, at once and without stalling another key, through
// the real `spark serve` on the embedded engine and the tiny GGUF (one sequence); a schema at the
// limits still works; a client that hangs up while its grammar is built frees the engine.
import OpenAI from "openai";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
      `context_size = 4096`,
      `sequences = 1`,
      `threads = 1`,
      `[serve]`,
      `api_keys = ["sk-alice", "sk-bob"]`,
      ``,
    ].join("\n"),
  );
}, 60_000);
afterAll(() => server?.stop());

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/** Before the limits, these schemas ran for minutes: a refusal must come well before this. */
const REFUSAL_DEADLINE_MS = 30_000;

function post(route: string, key: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, ...(body as object) }),
    signal: signal ?? AbortSignal.timeout(REFUSAL_DEADLINE_MS),
  });
}

async function expectRefused(reply: Response, param: string, words: string[]): Promise<string> {
  const body = (await reply.json()) as ErrorBody;
  expect(reply.status, JSON.stringify(body)).toBe(400);
  expect(body.error).toMatchObject({ type: "invalid_request_error", param });
  for (const word of words) expect(body.error.message).toContain(word);
  expect(body.error.message).not.toContain("Failed to parse grammar");
  return body.error.message;
}

const enumSchema = (values: number) => ({
  type: "object",
  properties: {
    // 30-odd characters a value, as in the report (100,000 values, 3.4 MB).
    pick: { type: "string", enum: Array.from({ length: values }, (_, index) => `v${index}`) },
  },
  required: ["pick"],
  additionalProperties: false,
});

const wideSchema = (properties: number) => ({
  type: "object",
  properties: Object.fromEntries(
    Array.from({ length: properties }, (_, index) => [`p${index}`, { type: "boolean" }]),
  ),
  additionalProperties: false,
});

const textFormat = (schema: object) => ({
  text: { format: { type: "json_schema", name: "answer", schema } },
});

const chatFormat = (schema: object) => ({
  messages: [{ role: "user", content: "Answer." }],
  response_format: { type: "json_schema", json_schema: { name: "answer", schema } },
  max_tokens: 8,
});

describe("schema size limits", () => {
  it("refuses a 100,000-value enum at once, naming the limit, while key B is served", async () => {
    const big = post("/v1/responses", "sk-alice", {
      input: "Pick one.",
      max_output_tokens: 8,
      ...textFormat(enumSchema(100_000)),
    });
    const bobStarted = performance.now();
    const bob = await post("/v1/responses", "sk-bob", { input: "Hi", max_output_tokens: 4 });
    const bobMs = performance.now() - bobStarted;
    expect(bob.status).toBe(200);
    await expectRefused(await big, "text.format.schema", ["100", "enum values", "1000"]);
    console.log(`key B's 4-token request beside the 100,000-value enum: ${bobMs.toFixed(0)} ms`);
  });

  it("refuses a 50,000-property schema on Chat Completions and as tool parameters", async () => {
    const wide = wideSchema(50_000);
    await expectRefused(
      await post("/v1/chat/completions", "sk-alice", chatFormat(wide)),
      "response_format.json_schema.schema",
      ["object properties", "5000"],
    );
    await expectRefused(
      await post("/v1/responses", "sk-alice", {
        input: "Call it.",
        tools: [{ type: "function", name: "fill", parameters: wide }],
        tool_choice: "required",
      }),
      "tools[0].parameters",
      ["object properties", "5000"],
    );
    await expectRefused(
      await post("/v1/chat/completions", "sk-alice", {
        messages: [{ role: "user", content: "Call it." }],
        tools: [{ type: "function", function: { name: "fill", parameters: wide } }],
        tool_choice: "required",
      }),
      "tools[0].function.parameters",
      ["object properties", "5000"],
    );
  });

  it("names minLength 1e6 and minItems 1e5 instead of 'Failed to parse grammar'", async () => {
    const longString = { type: "object", properties: { text: { type: "string", minLength: 1e6 } } };
    await expectRefused(
      await post("/v1/responses", "sk-alice", { input: "Write.", ...textFormat(longString) }),
      "text.format.schema",
      ["minLength 1000000", "limit of 1000"],
    );
    const longList = {
      type: "object",
      properties: { items: { type: "array", items: { type: "boolean" }, minItems: 1e5 } },
    };
    await expectRefused(
      await post("/v1/chat/completions", "sk-alice", chatFormat(longList)),
      "response_format.json_schema.schema",
      ["minItems 100000", "limit of 1000"],
    );
  });

  it("serves schemas at the limits: 1,000 enum values, 5,000 properties", async () => {
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "sk-alice", maxRetries: 0 });
    const atEnumLimit = enumSchema(1_000);
    const picked = await openai.responses.create({
      model,
      input: "Pick one.",
      max_output_tokens: 64,
      text: { format: { type: "json_schema", name: "pick", schema: atEnumLimit, strict: true } },
    });
    const { pick } = JSON.parse(picked.output_text) as { pick: string };
    expect(atEnumLimit.properties.pick.enum).toContain(pick);

    const wide = await openai.chat.completions.create({
      model,
      messages: [{ role: "user", content: "Fill it." }],
      response_format: {
        type: "json_schema",
        json_schema: { name: "wide", schema: wideSchema(5_000) },
      },
      max_tokens: 16,
    });
    expect(wide.choices[0]?.message.content).toMatch(/^\{\s*"p0"/);
  });

  it("abandons a WebSocket response whose client left while its grammar was built", async () => {
    const logBefore = server.log().length;
    const logSince = (): string => server.log().slice(logBefore);
    const socket = new WebSocket(`${server.url.replace(/^http/, "ws")}/v1/responses`, {
      headers: { authorization: "Bearer sk-alice" },
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    // 5,000 properties: a build long enough to leave during it (hundreds of ms on this machine).
    socket.send(
      JSON.stringify({
        type: "response.create",
        model,
        input: "Fill it.",
        max_output_tokens: 8,
        ...textFormat({ ...wideSchema(5_000), title: "left" }),
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.terminate();
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "sk-bob", maxRetries: 0 });
    await openai.responses.create({ model, input: "Hi.", max_output_tokens: 4 });
    // Had the abandoned response started, it would have taken the only sequence and written its
    // 8 tokens well inside this wait (its log line says format=json_schema). The lane also aborts
    // the build itself, which frees the grammar worker's queue for other requests.
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && !/format=json_schema/.test(logSince())) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(logSince()).not.toMatch(/format=json_schema/);
  });
});
