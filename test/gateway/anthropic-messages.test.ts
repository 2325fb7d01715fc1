// The Messages front's share of the gateway's common rules, in process over the scripted engine:
// the key's concurrency limit (429 rate_limit_error), stop_sequences reaching the engine, and
// refusals from the shared HTTP layer (content type, unknown paths) in Anthropic's error shape.
import { afterEach, describe, expect, it } from "vitest";
import { createScriptEngine } from "../../src/engines/script/script-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

let harness: GatewayHarness | undefined;
afterEach(async () => harness?.close());

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${harness?.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
}

const create = (extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-6",
  max_tokens: 64,
  messages: [{ role: "user", content: "Hi" }],
  ...extra,
});

describe("POST /v1/messages on the gateway's common rules", () => {
  it("refuses a request over the key's concurrency limit with 429 rate_limit_error", async () => {
    const engine = await createScriptEngine({
      model: "scripted",
      turns: [{ text: "a slow answer in many words to hold the slot", delayMs: 100 }],
    });
    harness = await startGatewayHarness(engine, { maxConcurrencyPerKey: 1 });
    const first = await post("/v1/messages", create({ stream: true }));
    expect(first.status).toBe(200);
    const second = await post("/v1/messages", create());
    expect(second.status).toBe(429);
    expect(await second.json()).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: expect.any(String) as unknown },
    });
    await first.text();
  });

  it("passes stop_sequences to the engine, which cuts the text there", async () => {
    const engine = await createScriptEngine({
      model: "scripted",
      turns: [{ text: "one two STOP three" }],
    });
    harness = await startGatewayHarness(engine);
    const response = await post("/v1/messages", create({ stop_sequences: ["STOP"] }));
    const message = (await response.json()) as { content: unknown; stop_reason: string };
    expect(engine.requests[0]?.sampling?.stop).toEqual(["STOP"]);
    expect(message.content).toEqual([{ type: "text", text: "one two " }]);
    expect(message.stop_reason).toBe("end_turn");
  });

  it("answers refusals of the shared HTTP layer in Anthropic's shape", async () => {
    harness = await startGatewayHarness(await createScriptEngine({ model: "scripted", turns: [] }));
    const notJson = await fetch(`${harness.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "hi",
    });
    expect(notJson.status).toBe(415);
    expect(await notJson.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error" },
    });
    const unknown = await post("/v1/messages/batches", {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      type: "error",
      error: { type: "not_found_error" },
    });
    const noModel = await post("/v1/messages/count_tokens", {
      model: "gpt-9",
      messages: [{ role: "user", content: "x" }],
    });
    expect(noModel.status).toBe(404);
    expect(await noModel.json()).toMatchObject({ error: { type: "not_found_error" } });
  });
});
