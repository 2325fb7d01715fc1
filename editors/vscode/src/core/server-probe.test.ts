import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { probeServer } from "./server-probe.ts";

async function serve(key: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${key}`) {
      response.writeHead(401).end('{"error":{"message":"no"}}');
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ object: "list", data: [{ id: "qwen-fim" }, { id: 3 }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("probeServer", () => {
  it("tells a refused key from an answering server and from no server", async () => {
    const server = await serve("right");
    try {
      await expect(probeServer({ baseUrl: server.url, apiKey: "right" })).resolves.toEqual({
        state: "up",
        models: ["qwen-fim"],
      });
      await expect(probeServer({ baseUrl: server.url, apiKey: "wrong" })).resolves.toEqual({
        state: "unauthorized",
      });
    } finally {
      await server.close();
    }
    await expect(probeServer({ baseUrl: server.url })).resolves.toEqual({ state: "unreachable" });
  });
});

describe("probeServer on a busy machine", () => {
  it("waits for a server that takes seconds to answer instead of calling it unreachable", async () => {
    const server = createServer((_request, response) => {
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ object: "list", data: [{ id: "slow" }] }));
      }, 2_500);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expect(probeServer({ baseUrl: url })).resolves.toEqual({
        state: "up",
        models: ["slow"],
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
