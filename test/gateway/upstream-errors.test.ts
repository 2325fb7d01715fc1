// An OpenAI-compatible upstream's failures as the gateway's clients see them: a broken stream or
// an HTML page is a retryable 502 upstream_error (not the client's 400), the upstream's address is
// logged but never sent, and a 429's Retry-After reaches the client over HTTP and WebSocket.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGateway, modelsFromEngine, type Gateway } from "../../src/gateway/index.ts";
import type { OpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { engineFor } from "../openai-compatible/engine-for-replay.ts";
import { ReplayServer } from "../openai-compatible/replay-server.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

let upstream: ReplayServer;
let engine: OpenAICompatibleEngine;
let gateway: Gateway;
let url: string;
const logged: string[] = [];

beforeAll(async () => {
  upstream = await ReplayServer.start();
  engine = engineFor(upstream.baseUrl, {
    timeouts: { connectMs: 300, firstByteMs: 1000, idleMs: 1000 },
  });
  gateway = createGateway({
    models: modelsFromEngine(engine),
    config: { host: "127.0.0.1", port: 0 },
    log: (line) => logged.push(line),
  });
  ({ url } = await gateway.listen());
});
afterEach(() => {
  logged.length = 0;
});
afterAll(async () => {
  await gateway.close();
  await engine.dispose();
  await upstream.close();
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const upstreamHost = (): string => new URL(upstream.baseUrl).host;

describe("upstream errors through the gateway", () => {
  it("an HTML page instead of a stream is a 502 upstream_error that does not name the upstream", async () => {
    for (const path of ["/v1/responses", "/v1/chat/completions"]) {
      upstream.respondWith({ contentType: "text/html", body: "<html>Welcome to nginx!</html>" });
      const reply = await post(
        path,
        path === "/v1/responses"
          ? { model: "replay-model", input: "Hi." }
          : { model: "replay-model", messages: [{ role: "user", content: "Hi." }] },
      );
      expect(reply.status).toBe(502);
      const body = (await reply.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("upstream_error");
      expect(body.error.message).not.toContain(upstreamHost());
      expect(body.error.message).not.toContain("127.0.0.1");
      // The operator still sees where it came from.
      expect(logged.join("\n")).toContain(upstreamHost());
    }
  });

  it("a stream cut short fails the response as upstream_error, without the upstream's address", async () => {
    upstream.respondWith({ fixture: "openai-text.sse", truncateAfterBytes: 200 });
    const client = await RawWsClient.connect(url);
    client.send({ type: "response.create", model: "replay-model", input: "Hi." });
    const final = await client.finalEvent();
    client.socket.terminate();
    expect(final.type).toBe("response.failed");
    const error = (final.response as { error: { spark_code: string; message: string } }).error;
    expect(error.spark_code).toBe("upstream_error");
    expect(error.message).not.toContain(upstreamHost());
  });

  it("an unreachable upstream is a network_error that does not name it", async () => {
    const unreachable = engineFor("http://127.0.0.1:9/v1", {
      timeouts: { connectMs: 300, firstByteMs: 300, idleMs: 300 },
    });
    const lonely = createGateway({
      models: modelsFromEngine(unreachable),
      config: { host: "127.0.0.1", port: 0 },
      log: (line) => logged.push(line),
    });
    const { url: lonelyUrl } = await lonely.listen();
    try {
      const reply = await fetch(`${lonelyUrl}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "replay-model", input: "Hi." }),
      });
      expect(reply.status).toBe(502);
      const text = await reply.text();
      expect(text).toContain("network_error");
      expect(text).not.toContain("127.0.0.1:9");
      expect(logged.join("\n")).toContain("127.0.0.1:9");
    } finally {
      await lonely.close();
      await unreachable.dispose();
    }
  });

  it("an upstream 429's Retry-After reaches the client on HTTP and on WebSocket", async () => {
    const rateLimited = {
      status: 429,
      contentType: "application/json",
      headers: { "retry-after": "7" },
      body: JSON.stringify({ error: { message: "Rate limit reached", type: "requests" } }),
    };
    upstream.respondWith(rateLimited);
    const reply = await post("/v1/responses", { model: "replay-model", input: "Hi." });
    expect(reply.status).toBe(429);
    expect(reply.headers.get("retry-after")).toBe("7");

    upstream.respondWith(rateLimited);
    const chat = await post("/v1/chat/completions", {
      model: "replay-model",
      messages: [{ role: "user", content: "Hi." }],
    });
    expect(chat.status).toBe(429);
    expect(chat.headers.get("retry-after")).toBe("7");

    upstream.respondWith(rateLimited);
    const client = await RawWsClient.connect(url);
    client.send({ type: "response.create", model: "replay-model", input: "Hi." });
    const final = await client.finalEvent();
    client.socket.terminate();
    expect(final.type).toBe("response.failed");
    expect(
      (final.response as { error: { code: string; retry_after: number } }).error,
    ).toMatchObject({ code: "rate_limit_exceeded", retry_after: 7 });
  });
});
