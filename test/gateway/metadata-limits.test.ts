// `metadata` is held to OpenAI's limits (16 pairs, keys ≤ 64 characters, string values ≤ 512) on
// POST /v1/responses, WebSocket response.create and POST /v1/chat/completions, over a real gateway
// on loopback: within them it is stored and echoed, beyond them a 400 naming the limit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness(createSyntheticEngine({ tokens: 2 }));
});
afterAll(() => harness.close());

function pairs(count: number, value = "v"): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`key${index}`, value]));
}

function post(route: string, body: unknown): Promise<Response> {
  return fetch(`${harness.url}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function createResponse(metadata: unknown): Promise<Response> {
  return post("/v1/responses", { model: harness.model, input: "Hi", metadata });
}

async function expectRefused(reply: Response, limitWords: string): Promise<ErrorBody["error"]> {
  expect(reply.status).toBe(400);
  const { error } = (await reply.json()) as ErrorBody;
  expect(error).toMatchObject({ type: "invalid_request_error", param: "metadata" });
  expect(error.message).toContain(limitWords);
  return error;
}

describe("metadata limits over HTTP", () => {
  it("accepts metadata at every limit and echoes it in the response", async () => {
    const metadata = {
      ...pairs(14),
      ["k".repeat(64)]: "at the key limit",
      // 512 characters that are 1,024 UTF-16 code units: the limit counts characters.
      long: "😀".repeat(512),
    };
    const reply = await createResponse(metadata);
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { metadata: unknown }).metadata).toEqual(metadata);
  });

  it("refuses 17 pairs and 200,000 pairs with a 400 naming the limit of 16", async () => {
    const seventeen = await expectRefused(await createResponse(pairs(17)), "16");
    expect(seventeen.message).toContain("17 key/value pairs");
    const huge = await expectRefused(await createResponse(pairs(200_000)), "16");
    expect(huge.message).toContain("200000 key/value pairs");
  });

  it("refuses a key over 64 characters and a value over 512", async () => {
    await expectRefused(await createResponse({ ["k".repeat(65)]: "v" }), "64 characters");
    const value = await expectRefused(await createResponse({ note: "x".repeat(513) }), "512");
    expect(value.message).toContain("'note'");
  });

  it("still refuses a value that is not a string, with the type error", async () => {
    const reply = await createResponse({ note: 5 });
    expect(reply.status).toBe(400);
    const { error } = (await reply.json()) as ErrorBody;
    expect(error.param).toBe("metadata.note");
  });

  it("holds Chat Completions to the same limits", async () => {
    const messages = [{ role: "user", content: "Hi" }];
    const within = await post("/v1/chat/completions", {
      model: harness.model,
      messages,
      metadata: pairs(16),
    });
    expect(within.status).toBe(200);
    await expectRefused(
      await post("/v1/chat/completions", { model: harness.model, messages, metadata: pairs(17) }),
      "16",
    );
  });
});

describe("metadata limits over WebSocket", () => {
  it("answers a response.create over the limit with an error event naming it", async () => {
    const client = await RawWsClient.connect(harness.url);
    try {
      client.send({
        type: "response.create",
        model: harness.model,
        input: "Hi",
        metadata: pairs(17),
      });
      const error = await client.waitFor((event) => event.type === "error");
      expect(JSON.stringify(error)).toContain('"param":"metadata"');
      expect(JSON.stringify(error)).toContain("over the limit of 16");
    } finally {
      client.socket.close();
    }
  });
});
