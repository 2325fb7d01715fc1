// Connections cost memory and file descriptors: the gateway caps how many are open at once, and
// closes a WebSocket that sits idle (no response in flight, nothing sent) past its idle timeout.
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import type { ServeConfig } from "../../src/gateway/index.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

let harness: GatewayHarness | undefined;
const clients: RawWsClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await harness?.close();
  harness = undefined;
});

async function start(config: Partial<ServeConfig>): Promise<GatewayHarness> {
  harness = await startGatewayHarness(createSyntheticEngine({ tokens: 4 }), config);
  return harness;
}

async function connect(url: string): Promise<RawWsClient> {
  const client = await RawWsClient.connect(url);
  clients.push(client);
  return client;
}

describe("connection limits", () => {
  it("refuses connections past max_connections, and accepts again once one closes", async () => {
    const { url } = await start({ maxConnections: 2 });
    const first = await connect(url);
    await connect(url);
    await expect(connect(url)).rejects.toThrow();
    first.socket.terminate();
    await first.closed();
    // The server sees the close a moment after the client: retry until the slot is free.
    for (;;) {
      try {
        await connect(url);
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });

  it("closes an idle WebSocket with 1001, but not one whose response is in flight", async () => {
    const { url } = await start({ idleTimeoutSeconds: 0.3 });
    const idle = await connect(url);
    expect(await idle.closed()).toBe(1001);
    expect(idle.closeReason).toMatch(/idle/);

    // A slow response outlasts the idle timeout; the countdown starts when it ends.
    await harness!.close();
    harness = await startGatewayHarness(
      createSyntheticEngine({ tokens: 40, tokensPerSecond: 50 }),
      { idleTimeoutSeconds: 0.3 },
    );
    const busy = await connect(harness.url);
    busy.send({ type: "response.create", input: "Take a while." });
    expect((await busy.finalEvent()).type).toBe("response.completed");
    expect(await busy.closed()).toBe(1001);
  });
});
