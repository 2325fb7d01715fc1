// The official Anthropic SDK (@anthropic-ai/sdk, pinned in package.json) against the real
// `spark serve` over a scripted model: messages.create and messages.stream (Anthropic's exact
// event sequence), a tool round trip with a multi-block is_error result, count_tokens, the error
// shape for a bad request and a wrong key, and a client that hangs up cancelling its turn.
// One server for the file: each case plays its own script, a model of its own, so the cases share
// no turns and may run in any order; the default model (what a claude-* name reaches) is the first
// case's.
import Anthropic from "@anthropic-ai/sdk";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptTurnInput } from "../../src/engines/script/script-turn.ts";
import { startSparkServe, type SparkServeProcess } from "./support/spark-serve-process.ts";

const KEY = "anthropic-test-key";
const slowWords = Array.from({ length: 400 }, (_, index) => `word${index}`).join(" ");

/** Each case's model and the lines its script plays; `scripted` is the default model. */
const scripts: Record<string, ScriptTurnInput[]> = {
  scripted: [{ text: "Hello from Spark.", expect: { lastMessageIncludes: "Say hello" } }],
  "stream-turns": [{ reasoning: "The user wants a greeting.", text: "Hi there, friend." }],
  "raw-turns": [{ reasoning: "Hidden thoughts.", text: "Visible." }],
  "tool-turns": [
    {
      text: "Checking.",
      toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" }, id: "toolu_1" }],
    },
    {
      text: "The lookup failed: the station is down.",
      expect: { lastMessageRole: "tool", lastMessageIncludes: "Error: station down" },
    },
    { text: "Both parts arrived.", expect: { anyMessageIncludes: "first part\n\nsecond part" } },
  ],
  "failing-turns": [
    { text: "Par", error: { code: "rate_limited", message: "The upstream is rate limited." } },
  ],
  "keyed-turns": [{ text: "One." }, { text: "Two." }],
  "slow-turns": [{ text: slowWords, delayMs: 25 }],
};

let server: SparkServeProcess;
let url: string;

beforeAll(async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), "spark-anthropic-script-"));
  let models = "";
  for (const [name, turns] of Object.entries(scripts)) {
    const script = path.join(directory, `${name}.jsonl`);
    await writeFile(script, turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
    models += `[models.${name}]\nengine = "script"\npath = "${script}"\n`;
  }
  server = await startSparkServe(
    `default_model = "scripted"\n[serve]\napi_keys = ["${KEY}"]\n${models}`,
    [],
    [directory],
  );
  url = server.url;
});

afterAll(async () => server?.stop());

function client(url: string, apiKey = KEY): Anthropic {
  return new Anthropic({ baseURL: url, apiKey, maxRetries: 0 });
}

const weatherTool = {
  name: "get_weather",
  description: "The weather in a city.",
  input_schema: {
    type: "object" as const,
    properties: { city: { type: "string" } },
    required: ["city"],
  },
};

describe("Anthropic SDK against spark serve", () => {
  it("messages.create answers with a message, any claude-* name reaching the default model", async () => {
    const logBefore = server.log().length;
    const message = await client(url).messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 256,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "Say hello" }],
      metadata: { user_id: "someone" },
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message.type).toBe("message");
    expect(message.model).toBe("claude-sonnet-4-6");
    expect(message.content).toEqual([{ type: "text", text: "Hello from Spark." }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message.usage.cache_read_input_tokens).toBe(0);
    // The request log names the Spark model that served it.
    expect(server.log().slice(logBefore)).toMatch(/scripted/);
  });

  it("messages.stream sends Anthropic's event sequence, thinking included", async () => {
    const stream = client(url).messages.stream({
      model: "stream-turns",
      max_tokens: 256,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "Greet me" }],
    });
    const events: string[] = [];
    for await (const event of stream) {
      events.push(
        event.type === "content_block_delta" ? `${event.type}:${event.delta.type}` : event.type,
      );
    }
    const message = await stream.finalMessage();
    expect(collapseRepeats(events)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta:thinking_delta",
      "content_block_delta:signature_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta:text_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(message.content[0]).toMatchObject({
      type: "thinking",
      thinking: "The user wants a greeting.",
    });
    expect(message.content[1]).toEqual({ type: "text", text: "Hi there, friend." });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it("the raw stream has a ping after message_start, and no thinking unless asked for", async () => {
    const response = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": KEY,
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify({
        model: "raw-turns",
        max_tokens: 64,
        stream: true,
        messages: [{ role: "user", content: "Go" }],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const names = [...text.matchAll(/^event: (\S+)$/gm)].map((match) => match[1]);
    expect(names.slice(0, 3)).toEqual(["message_start", "ping", "content_block_start"]);
    expect(names.at(-1)).toBe("message_stop");
    expect(text).not.toContain("Hidden");
    // Every data line is the event named on the line before it.
    for (const [, name, data] of text.matchAll(/^event: (\S+)\ndata: (.+)$/gm))
      expect((JSON.parse(data ?? "{}") as { type: string }).type).toBe(name);
  });

  it("runs a tool round trip: tool_use, then a tool_result of several blocks marked is_error", async () => {
    const anthropic = client(url);
    const stream = anthropic.messages.stream({
      model: "tool-turns",
      max_tokens: 256,
      tools: [weatherTool],
      tool_choice: { type: "auto" },
      messages: [{ role: "user", content: "Weather in Oslo?" }],
    });
    const deltas: string[] = [];
    stream.on("inputJson", (partial) => deltas.push(partial));
    const first = await stream.finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const toolUse = first.content.find((block) => block.type === "tool_use");
    expect(toolUse).toEqual({
      type: "tool_use",
      id: "toolu_1",
      name: "get_weather",
      input: { city: "Oslo" },
    });
    expect(deltas.join("")).toBe('{"city":"Oslo"}');

    const second = await anthropic.messages.create({
      model: "tool-turns",
      max_tokens: 256,
      tools: [weatherTool],
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              is_error: true,
              content: [{ type: "text", text: "station down" }],
            },
          ],
        },
      ],
    });
    expect(second.content).toEqual([
      { type: "text", text: "The lookup failed: the station is down." },
    ]);

    const third = await anthropic.messages.create({
      model: "tool-turns",
      max_tokens: 256,
      tools: [weatherTool],
      tool_choice: { type: "any" },
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [
                { type: "text", text: "first part" },
                { type: "text", text: "second part" },
              ],
            },
          ],
        },
      ],
    });
    expect(third.content).toEqual([{ type: "text", text: "Both parts arrived." }]);
  });

  it("counts tokens, more for a longer input, and lists the models", async () => {
    const anthropic = client(url);
    const listed: string[] = [];
    for await (const model of anthropic.models.list()) listed.push(model.id);
    expect(listed).toContain("scripted");
    const short = await anthropic.messages.countTokens({
      model: "claude-sonnet-4-6",
      messages: [{ role: "user", content: "Hi" }],
    });
    const long = await anthropic.messages.countTokens({
      model: "claude-sonnet-4-6",
      system: "You are a careful assistant.",
      tools: [weatherTool],
      messages: [{ role: "user", content: "Hi ".repeat(400) }],
    });
    expect(short.input_tokens).toBeGreaterThan(0);
    expect(long.input_tokens).toBeGreaterThan(short.input_tokens + 300);
  });

  it("answers a bad request, an image, an unknown model and a failed stream in Anthropic's error shape", async () => {
    // Only the stream at the end gets as far as the engine.
    const anthropic = client(url);
    const missingMaxTokens = await anthropic.messages
      .create({ model: "claude-sonnet-4-6", messages: [{ role: "user", content: "x" }] } as never)
      .catch((error: unknown) => error);
    expect(missingMaxTokens).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (missingMaxTokens as InstanceType<typeof Anthropic.BadRequestError>).error as {
      type: string;
      error: { type: string; message: string };
    };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("max_tokens");

    const image = await anthropic.messages
      .create({
        model: "claude-sonnet-4-6",
        max_tokens: 16,
        messages: [
          {
            role: "user",
            content: [
              { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
            ],
          },
        ],
      })
      .catch((error: unknown) => error);
    expect(image).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((image as Error).message)).toMatch(/messages\[0\]\.content\[0\].*no vision/);

    const unknown = await anthropic.messages
      .create({ model: "gpt-9", max_tokens: 16, messages: [{ role: "user", content: "x" }] })
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
      type: "error",
      error: { type: "not_found_error" },
    });

    // A failure after the stream started arrives as an `error` event, which the SDK throws.
    const failed = await anthropic.messages
      .stream({
        model: "failing-turns",
        max_tokens: 16,
        messages: [{ role: "user", content: "x" }],
      })
      .finalMessage()
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Anthropic.APIError);
    expect((failed as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "The upstream is rate limited." },
    });
  });

  it("takes the key as x-api-key or as a bearer token, and refuses a wrong one with 401", async () => {
    const wrong = await client(url, "not-the-key")
      .messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 16,
        messages: [{ role: "user", content: "x" }],
      })
      .catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((wrong as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: "error",
      error: { type: "authentication_error" },
    });
    const request = {
      model: "keyed-turns",
      max_tokens: 16,
      messages: [{ role: "user" as const, content: "x" }],
    };
    expect((await client(url).messages.create(request)).content).toEqual([
      { type: "text", text: "One." },
    ]);
    const bearer = new Anthropic({ baseURL: url, apiKey: null, authToken: KEY, maxRetries: 0 });
    expect((await bearer.messages.create(request)).content).toEqual([
      { type: "text", text: "Two." },
    ]);
  });

  it("cancels the turn when the client hangs up mid-stream", async () => {
    const metrics = async (): Promise<Map<string, number>> =>
      responseCounts(
        await (
          await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${KEY}` } })
        ).text(),
      );
    // The server is the file's: what this case adds is counted from what the others left.
    const before = await metrics();
    const controller = new AbortController();
    const stream = client(url).messages.stream(
      {
        model: "slow-turns",
        max_tokens: 4096,
        messages: [{ role: "user", content: "Talk" }],
      },
      { signal: controller.signal },
    );
    for await (const event of stream) {
      if (event.type === "content_block_delta") break;
    }
    controller.abort();
    // The script would take ten seconds to finish; a cancelled turn ends at once, incomplete.
    let after = before;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      after = await metrics();
      if (total(after) > total(before)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const added = (labels: string): number => (after.get(labels) ?? 0) - (before.get(labels) ?? 0);
    expect(added('transport="http",status="incomplete"')).toBe(1);
    expect(total(after) - total(before)).toBe(1);
  });
});

/** spark_gateway_responses_total by its labels. */
function responseCounts(metricsText: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [, labels, value] of metricsText.matchAll(
    /^spark_gateway_responses_total\{([^}]*)\} (\d+)$/gm,
  ))
    counts.set(labels ?? "", Number(value));
  return counts;
}

function total(counts: Map<string, number>): number {
  return [...counts.values()].reduce((sum, count) => sum + count, 0);
}

/** Consecutive repeats as one: the text arrives in as many deltas as the engine's ticks. */
function collapseRepeats(values: string[]): string[] {
  return values.filter((value, index) => value !== values[index - 1]);
}
