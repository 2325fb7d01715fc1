// The operator log of `spark serve`: a refused request, a finished response and a WebSocket's
// life each leave one line, with the error code and message where there is one.
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { createGateway, modelsFromEngine, type Gateway } from "../../src/gateway/index.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

let gateway: Gateway | undefined;
afterEach(async () => gateway?.close());

describe("request log", () => {
  it("logs a 400 with its reason, a response, and a WebSocket's open, errors and close", async () => {
    const lines: string[] = [];
    gateway = createGateway({
      models: modelsFromEngine(createSyntheticEngine({ tokens: 3 })),
      config: { host: "127.0.0.1", port: 0 },
      log: (line) => lines.push(line),
    });
    const { url } = await gateway.listen();
    const refused = await fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: [{ type: "item_reference", id: "msg_missing" }] }),
    });
    expect(refused.status).toBe(404);
    await fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "Hi." }),
    });
    await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "Hi." }] }),
    });
    const client = await RawWsClient.connect(url);
    client.send({ type: "response.cancel" });
    await client.waitFor((event) => event.type === "error");
    client.socket.close();
    await client.closed();
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(
      lines.some((line) => /POST \/v1\/responses 404 \d+ms item_not_found: input\[0\]/.test(line)),
    ).toBe(true);
    expect(
      lines.some((line) => /response resp_\w+ http model=\S+ status=completed/.test(line)),
    ).toBe(true);
    expect(lines.some((line) => /POST \/v1\/responses 200/.test(line))).toBe(true);
    // Chat Completions lines say as much as Responses lines (issue 24).
    expect(
      lines.some((line) =>
        /response chatcmpl-\w+ http model=\S+ status=completed input_tokens=\d+ cached_tokens=\d+ output_tokens=3 ttft=\d+ms total=\d+ms/.test(
          line,
        ),
      ),
    ).toBe(true);
    expect(lines.some((line) => /ws event error response_not_active/.test(line))).toBe(true);
    expect(lines.filter((line) => / ws (open|close)/.test(line))).toHaveLength(2);
    expect(lines.every((line) => /^\d{4}-\d\d-\d\dT/.test(line))).toBe(true);
  });
});
