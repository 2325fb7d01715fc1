// The WebSocket connection lifetime (OpenAI: 60 minutes) ends the way OpenAI's does: an error
// event with code websocket_connection_limit_reached, then a 1001 close, once nothing is in flight.
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

let harness: GatewayHarness | undefined;
afterEach(async () => harness?.close());

describe("connection lifetime", () => {
  it("sends websocket_connection_limit_reached, then closes with 1001", async () => {
    const engine = createSyntheticEngine({ tokensPerSecond: 100, tokens: 40 });
    harness = await startGatewayHarness(engine, { connectionLifetimeSeconds: 0.3 });
    const client = await RawWsClient.connect(harness.url);
    client.send({ type: "response.create", input: "Long.", max_output_tokens: 40 });
    expect((await client.finalEvent()).type).toBe("response.completed");
    const error = await client.waitFor((event) => event.type === "error");
    expect(error.code).toBe("websocket_connection_limit_reached");
    expect(await client.closed()).toBe(1001);
    expect(client.closeReason).toMatch(/^websocket_connection_limit_reached/);
  });
});
