// GET /v1/responses/{id}/input_items through the openai SDK (responses.inputItems.list), on a real
// gateway over loopback: a string input is one user message, an array keeps its items in order,
// pages follow `order`, `limit` and `after`, and another response's id is a 404.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

describe("GET /v1/responses/{id}/input_items", () => {
  let harness: GatewayHarness;
  let client: OpenAI;

  beforeAll(async () => {
    harness = await startGatewayHarness(createSyntheticEngine());
    client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
  });

  afterAll(async () => harness.close());

  it("lists a string input as one user message", async () => {
    const response = await client.responses.create({ model: harness.model, input: "Hello there." });
    const page = await client.responses.inputItems.list(response.id);
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "Hello there." }],
    });
    expect(typeof page.data[0]?.id).toBe("string");
  });

  it("keeps an array input's items, newest first by default, with asc and paging", async () => {
    const response = await client.responses.create({
      model: harness.model,
      input: [
        { role: "user", content: "first" },
        { role: "assistant", content: "second" },
        { role: "user", content: [{ type: "input_text", text: "third" }] },
      ],
    });
    const newestFirst = await client.responses.inputItems.list(response.id);
    const texts = (items: typeof newestFirst.data): string[] =>
      items.map((item) =>
        item.type === "message" ? String((item.content[0] as { text: string }).text) : item.type,
      );
    expect(texts(newestFirst.data)).toEqual(["third", "second", "first"]);
    const ascending = await client.responses.inputItems.list(response.id, {
      order: "asc",
      limit: 2,
    });
    expect(texts(ascending.data)).toEqual(["first", "second"]);
    expect(ascending.has_more).toBe(true);
    const rest = await client.responses.inputItems.list(response.id, {
      order: "asc",
      after: ascending.data[1]?.id ?? "",
    });
    expect(texts(rest.data)).toEqual(["third"]);
  });

  it("is a 404 for an id that is not stored", async () => {
    await expect(client.responses.inputItems.list("resp_nothing")).rejects.toMatchObject({
      status: 404,
    });
  });
});
