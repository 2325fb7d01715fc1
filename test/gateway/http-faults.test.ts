// Faults on the stateless HTTP paths: a client that hangs up mid-stream frees the engine, and an
// engine failure mid-stream reaches the SDK as response.failed or as a thrown APIError.
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("HTTP faults", () => {
  it("a client that drops a streaming response frees the engine", async () => {
    const engine = createSyntheticEngine({ tokensPerSecond: 200, tokens: 2000 });
    harness = await startGatewayHarness(engine);
    const client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
    for (const path of ["responses", "chat"] as const) {
      const stream =
        path === "responses"
          ? await client.responses.create({ model: harness.model, input: "Go.", stream: true })
          : await client.chat.completions.create({
              model: harness.model,
              messages: [{ role: "user", content: "Go." }],
              stream: true,
            });
      let seen = 0;
      for await (const _event of stream) {
        if (++seen >= 8) break;
      }
      expect(engine.activeStreams).toBeLessThanOrEqual(1);
      await until(() => engine.activeStreams === 0);
    }
  });

  it("an engine failure mid-stream is response.failed on /v1/responses and an APIError on chat", async () => {
    harness = await startGatewayHarness(createSyntheticEngine({ tokens: 40, failAfterTokens: 4 }));
    const client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const stream = await client.responses.create({
      model: harness.model,
      input: "Go.",
      stream: true,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe("response.failed");
    expect(types).toContain("response.output_text.delta");

    const chat = await client.chat.completions.create({
      model: harness.model,
      messages: [{ role: "user", content: "Go." }],
      stream: true,
    });
    const consume = async () => {
      for await (const _chunk of chat) {
        // drain
      }
    };
    await expect(consume()).rejects.toMatchObject({ code: "upstream_error" });
    await expect(
      client.responses.create({ model: harness.model, input: "Go." }),
    ).rejects.toMatchObject({
      status: 502,
      code: "upstream_error",
    });
  });
});
