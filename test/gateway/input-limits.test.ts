// Input the gateway refuses without falling over or wasting work: JSON nested too deep (a 400, not
// a stack overflow), bodies over max_frame_bytes (a 413 without reading the rest), and WebSocket
// frames far over the limit (an error event before the close).
import { connect as connectTcp, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import type { ServeConfig } from "../../src/gateway/index.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

let harness: GatewayHarness | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await harness?.close();
  harness = undefined;
});

async function start(config: Partial<ServeConfig> = {}): Promise<GatewayHarness> {
  harness = await startGatewayHarness(createSyntheticEngine({ tokens: 4 }), config);
  return harness;
}

function nested(depth: number): string {
  return '{"a":'.repeat(depth) + "{}" + "}".repeat(depth);
}

/** Opens a raw TCP connection and collects what the server sends until it closes. */
async function rawConnection(
  url: string,
): Promise<{ socket: Socket; received: () => string; ended: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connectTcp(Number(port), hostname);
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, received: () => text, ended };
}

describe("input limits", () => {
  it("JSON nested thousands deep is a 400 over HTTP and an error event over WebSocket", async () => {
    const { url, model } = await start();
    const body = `{"model":"${model}","input":"x","tools":[{"type":"function","name":"f","parameters":${nested(5000)}}]}`;
    const reply = await fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ error: { code: "json_too_deep" } });

    const client = await RawWsClient.connect(url);
    client.sendRaw(`{"type":"response.create",${body.slice(1)}`);
    const error = await client.waitFor((event) => event.type === "error");
    expect(error.code).toBe("json_too_deep");
    // The connection keeps working.
    client.send({ type: "response.create", input: "Still here?" });
    expect((await client.finalEvent()).type).toBe("response.completed");
    client.socket.terminate();
  });

  it("a declared oversized body gets its 413 and the connection closes, unread", async () => {
    const { url } = await start({ maxFrameBytes: 1024 });
    const { socket, received, ended } = await rawConnection(url);
    socket.write(
      "POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        `Content-Length: ${64 * 1024 * 1024}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(64 * 1024, 0x20));
    // The server answers and hangs up without waiting for the other 63.9 MiB.
    await ended;
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(received().toLowerCase()).toContain("connection: close");
  });

  it("a chunked body that grows past the limit gets its 413 and the connection closes", async () => {
    const { url } = await start({ maxFrameBytes: 1024 });
    const { socket, received, ended } = await rawConnection(url);
    socket.write(
      "POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        "Transfer-Encoding: chunked\r\n\r\n",
    );
    const chunk = Buffer.alloc(4096, 0x20);
    socket.write(`${chunk.length.toString(16)}\r\n`);
    socket.write(chunk);
    socket.write("\r\n");
    await ended;
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("a frame far over the limit gets a frame_too_large error event, then close 1009", async () => {
    const { url } = await start({ maxFrameBytes: 1024 });
    const client = await RawWsClient.connect(url);
    // Within four times the limit: an error event, and the connection goes on.
    client.sendRaw(JSON.stringify({ type: "response.create", input: "x".repeat(2000) }));
    expect((await client.waitFor((event) => event.type === "error")).code).toBe("frame_too_large");
    client.sendRaw(JSON.stringify({ type: "response.create", input: "x".repeat(8000) }));
    const closeCode = await client.closed();
    expect(closeCode).toBe(1009);
    const errors = client.events.filter((event) => event.type === "error");
    expect(errors).toHaveLength(2);
    expect(errors[1]?.code).toBe("frame_too_large");
  });
});
