// The worker that turns JSON schemas into GBNF: the text is node-llama-cpp's own (its converter is
// reached by path, so an upgrade that moves it fails here), and an abandoned build stops without
// failing the next one.
import { getLlama } from "node-llama-cpp";
import { afterAll, describe, expect, it } from "vitest";
import { GbnfBuilder } from "../../src/engines/llama-cpp/structured-output/gbnf-builder.ts";
import { SparkError } from "../../src/protocol/spark-error.ts";

const builder = new GbnfBuilder();
afterAll(() => builder.dispose());

const weather = {
  type: "object",
  properties: {
    city: { type: "string", maxLength: 12 },
    sky: { enum: ["sunny", "cloudy"] },
    readings: { type: "array", items: { type: "number" }, maxItems: 3 },
  },
};

/** Thousands of properties: long enough to still be building when the test aborts it. */
function wideSchema(properties: number): object {
  return {
    type: "object",
    properties: Object.fromEntries(
      Array.from({ length: properties }, (_, index) => [`p${index}`, { type: "string" }]),
    ),
  };
}

describe("GbnfBuilder", () => {
  it("writes the grammar node-llama-cpp's createGrammarForJsonSchema writes", async () => {
    const llama = await getLlama({ gpu: false, build: "never" });
    const expected = (await llama.createGrammarForJsonSchema(weather as never)).grammar;
    expect(await builder.build(weather)).toBe(expected);
  });

  it("abandons a build whose signal aborts, and builds the next one", async () => {
    const controller = new AbortController();
    const abandoned = builder.build(wideSchema(20_000), controller.signal);
    const queued = new AbortController();
    const dropped = builder.build({ type: "string" }, queued.signal);
    const next = builder.build({ type: "null" });
    queued.abort();
    controller.abort();
    const error = await abandoned.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SparkError);
    expect((error as SparkError).code).toBe("cancelled");
    await expect(dropped).rejects.toMatchObject({ code: "cancelled" });
    expect(await next).toContain("null");
  });
});
