// DNS rebinding and cross-site requests: a loopback server answers only to loopback Host names
// (and configured ones) on HTTP and the WebSocket upgrade, applies the Origin allow-list to HTTP
// too, and starts no generation from a body that is not declared JSON.
import { request as httpRequest } from "node:http";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import {
  createSyntheticEngine,
  type SyntheticEngine,
} from "../../src/engines/synthetic/synthetic-engine.ts";
import type { ServeConfig } from "../../src/gateway/index.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(config: Partial<ServeConfig> = {}): Promise<GatewayHarness> {
  harness = await startGatewayHarness(createSyntheticEngine({ tokens: 4 }), config);
  return harness;
}

interface RawReply {
  status: number;
  body: string;
}

/** One HTTP request with exactly these headers (fetch will not send a foreign Host). */
function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}${path}`, { method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () =>
        resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/v1/responses`, { headers });
  return new Promise((resolve, reject) => {
    socket.on("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on("open", () => {
      socket.terminate();
      resolve(101);
    });
    socket.on("error", reject);
  });
}

const port = (url: string): string => new URL(url).port;

describe("request source checks", () => {
  it("a loopback server refuses a rebound Host name on HTTP and on the upgrade", async () => {
    const { url } = await start();
    const rebound = { host: `attacker.example:${port(url)}` };
    const refused = await send(url, "GET", "/v1/models", rebound);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "host_not_allowed" } });
    // The attacker's page also sends its own origin, which matches the rebound Host.
    expect(
      await upgradeStatus(url, { ...rebound, Origin: `http://attacker.example:${port(url)}` }),
    ).toBe(403);
    expect(await upgradeStatus(url, rebound)).toBe(403);

    for (const host of [
      `localhost:${port(url)}`,
      `127.0.0.1:${port(url)}`,
      `[::1]:${port(url)}`,
      "localhost",
    ]) {
      expect((await send(url, "GET", "/v1/models", { host })).status).toBe(200);
      expect(await upgradeStatus(url, { host })).toBe(101);
    }
  });

  it("allowed_hosts adds names a loopback server answers to", async () => {
    const { url } = await start({ allowedHosts: ["spark.internal"] });
    expect(
      (await send(url, "GET", "/v1/models", { host: `spark.internal:${port(url)}` })).status,
    ).toBe(200);
    expect(await upgradeStatus(url, { host: "spark.internal" })).toBe(101);
    expect((await send(url, "GET", "/v1/models", { host: "other.internal" })).status).toBe(403);
  });

  it("a cross-origin page cannot start a generation over HTTP", async () => {
    const { url, model, engine } = await start({ allowedOrigins: ["https://editor.example"] });
    const synthetic = engine as SyntheticEngine;
    const body = JSON.stringify({ model, input: "Run up the bill." });
    // What a <form> or fetch(no-cors) can send from any site without a preflight.
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", undefined]) {
      const headers: Record<string, string> = { origin: "https://editor.example" };
      if (contentType !== undefined) headers["content-type"] = contentType;
      const reply = await send(url, "POST", "/v1/responses", headers, body);
      expect(reply.status).toBe(415);
      expect(JSON.parse(reply.body)).toMatchObject({ error: { code: "unsupported_media_type" } });
    }
    const foreign = await send(
      url,
      "POST",
      "/v1/chat/completions",
      { origin: "https://evil.example", "content-type": "application/json" },
      JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    );
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ error: { code: "origin_not_allowed" } });
    expect(synthetic.requests).toHaveLength(0);

    const allowed = await send(
      url,
      "POST",
      "/v1/responses",
      { origin: "https://editor.example", "content-type": "application/json; charset=utf-8" },
      body,
    );
    expect(allowed.status).toBe(200);
    expect(synthetic.requests).toHaveLength(1);
  });
});
