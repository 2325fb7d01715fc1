// Connections cannot be used to lock clients out (issue 32, finding 7), on a real gateway on
// loopback with two keys: sockets that never present a key sit in a small pending pool and are
// closed after the handshake timeout, and one key's sockets leave room for another key's.
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import type { ServeConfig } from "../../src/gateway/index.ts";
import { refusedHandshake } from "../app-server/support/serve-harness.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

const KEY_A = "sk-tenant-a";
const KEY_B = "sk-tenant-b";

let harness: GatewayHarness | undefined;
const clients: RawWsClient[] = [];
const idleSockets: Socket[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  for (const socket of idleSockets.splice(0)) socket.destroy();
  await harness?.close();
  harness = undefined;
});

async function start(config: Partial<ServeConfig>): Promise<GatewayHarness> {
  harness = await startGatewayHarness(createSyntheticEngine({ tokens: 4 }), {
    apiKeys: [KEY_A, KEY_B],
    ...config,
  });
  return harness;
}

async function connectWith(url: string, key: string): Promise<RawWsClient> {
  const client = await RawWsClient.connect(url, { authorization: `Bearer ${key}` });
  clients.push(client);
  return client;
}

/** A TCP connection that sends nothing; resolves once connected (or already closed by the server). */
function openIdleSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  idleSockets.push(socket);
  socket.on("error", () => undefined);
  return new Promise((resolve) => {
    socket.once("connect", () => resolve(socket));
    socket.once("close", () => resolve(socket));
  });
}

/** Key B can still do everything: a WebSocket response streams, and GET /v1/models answers. */
async function expectKeyBServed(url: string): Promise<void> {
  const client = await connectWith(url, KEY_B);
  client.send({ type: "response.create", input: "Still here?" });
  expect((await client.finalEvent()).type).toBe("response.completed");
  const models = await fetch(`${url}/v1/models`, {
    headers: { authorization: `Bearer ${KEY_B}` },
    signal: AbortSignal.timeout(5000),
  });
  expect(models.status).toBe(200);
}

describe("connection exhaustion", () => {
  it("1,100 silent sockets lock nobody out and are closed after the handshake timeout", async () => {
    // max_connections stays at its default (1,024): the attack in the finding, at full size.
    const { url } = await start({
      maxPendingConnections: 64,
      maxPendingPerAddress: 32,
      handshakeTimeoutSeconds: 1,
    });
    const sockets: Socket[] = [];
    for (let batch = 0; batch < 11; batch += 1) {
      sockets.push(...(await Promise.all(Array.from({ length: 100 }, () => openIdleSocket(url)))));
    }
    const openedAt = Date.now();
    await expectKeyBServed(url);
    // Every silent socket is gone: the oldest to make room, the rest at the handshake timeout.
    await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<void>((resolve) => {
            if (socket.destroyed || socket.readyState === "closed") resolve();
            else socket.once("close", () => resolve());
          }),
      ),
    );
    expect(Date.now() - openedAt).toBeLessThan(5000);
    // ... and the server goes on serving.
    await expectKeyBServed(url);
  });

  it("one key's WebSockets leave room for another key's, and the refusal names the limit", async () => {
    const { url } = await start({ maxConnections: 40, maxConnectionsPerKey: 10 });
    const attempts = await Promise.allSettled(
      Array.from({ length: 40 }, () => connectWith(url, KEY_A)),
    );
    expect(attempts.filter((attempt) => attempt.status === "fulfilled")).toHaveLength(10);
    const refused = await refusedHandshake(`${url.replace(/^http/, "ws")}/v1/responses`, {
      headers: { authorization: `Bearer ${KEY_A}` },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("connection_limit_reached");
    expect(refused.body.error.message).toContain("max_connections_per_key = 10");
    await expectKeyBServed(url);
  });

  it("past max_connections the server answers 503 naming it", async () => {
    const { url } = await start({ maxConnections: 3, maxConnectionsPerKey: 2 });
    const webSocketUrl = `${url.replace(/^http/, "ws")}/v1/responses`;
    await connectWith(url, KEY_A);
    await connectWith(url, KEY_A);
    const perKey = await refusedHandshake(webSocketUrl, {
      headers: { authorization: `Bearer ${KEY_A}` },
    });
    expect(perKey.status).toBe(429);
    await connectWith(url, KEY_B);
    const global = await refusedHandshake(webSocketUrl, {
      headers: { authorization: `Bearer ${KEY_B}` },
    });
    expect(global.status).toBe(503);
    expect(global.body.error.message).toContain("max_connections = 3");
    // Over HTTP too, with the same body, and the socket is not kept.
    const models = await fetch(`${url}/v1/models`, {
      headers: { authorization: `Bearer ${KEY_B}` },
    });
    expect(models.status).toBe(503);
    expect(models.headers.get("retry-after")).toBe("1");
    expect(models.headers.get("connection")).toBe("close");
  });
});
