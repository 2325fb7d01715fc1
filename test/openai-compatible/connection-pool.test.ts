// Warm, shared keep-alive connections: creation warms a connection that the first stream then
// reuses, engines on one origin share a pool, and listModels reads the upstream's model list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { collectStream } from "../../src/engines/collect-stream.ts";
import { openHttpPoolCount } from "../../src/engines/openai-compatible/http-pool.ts";
import { warmConnectionCount } from "../../src/engines/openai-compatible/warm-up-connection.ts";
import { engineFor, userRequest } from "./engine-for-replay.ts";
import { ReplayServer } from "./replay-server.ts";

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});

describe("connection pool", () => {
  it("warms a connection at creation and streams over it", { timeout: 5_000 }, async () => {
    const connectionsBefore = server.connectionCount;
    const engine = engineFor(server.baseUrl, { warmUp: true, apiKey: "sk-test" });
    try {
      // Joins the warm-up that creation started rather than sending another.
      await engine.warmUp();
      const warmUps = server.requests.filter(
        (request) => request.url === "/v1/models/replay-model",
      );
      expect(warmUps).toHaveLength(warmConnectionCount);
      expect(warmUps[0]?.headers.authorization).toBe("Bearer sk-test");
      expect(server.connectionCount).toBe(connectionsBefore + warmConnectionCount);
      server.respondWith({ fixture: "openai-text.sse" });
      const first = await collectStream(engine.stream(userRequest));
      const second = await collectStream(engine.stream(userRequest));
      expect(first.finishReason).toBe("stop");
      expect(second.finishReason).toBe("stop");
      // Back-to-back streams went over the warmed connections; none had to be opened.
      expect(server.connectionCount).toBe(connectionsBefore + warmConnectionCount);
    } finally {
      await engine.dispose();
    }
  });

  it("engines on the same origin share one pool, closed with the last of them", async () => {
    const before = openHttpPoolCount();
    const first = engineFor(server.baseUrl, { model: "a" });
    const second = engineFor(server.baseUrl, { model: "b" });
    expect(openHttpPoolCount()).toBe(before + 1);
    await first.dispose();
    expect(openHttpPoolCount()).toBe(before + 1);
    await second.dispose();
    expect(openHttpPoolCount()).toBe(before);
  });

  it("warmUp() rejects with a network_error when nothing listens", { timeout: 5_000 }, async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const engine = engineFor(`http://127.0.0.1:${port}/v1`);
    await expect(engine.warmUp()).rejects.toMatchObject({ code: "network_error", retryable: true });
    await engine.dispose();
  });
});

describe("listModels", () => {
  it("reads GET /models with context lengths where the server gives them", async () => {
    server.models = [
      {
        id: "Qwen/Qwen2.5-Coder-7B-Instruct",
        object: "model",
        owned_by: "vllm",
        max_model_len: 32768,
      },
      { id: "meta-llama/llama-3.1-8b-instruct", context_length: 131072 },
      { id: "plain" },
      { no: "id" },
    ];
    const engine = engineFor(server.baseUrl);
    await expect(engine.listModels()).resolves.toEqual([
      { id: "Qwen/Qwen2.5-Coder-7B-Instruct", engine: "openai-compatible", contextLength: 32768 },
      {
        id: "meta-llama/llama-3.1-8b-instruct",
        engine: "openai-compatible",
        contextLength: 131072,
      },
      { id: "plain", engine: "openai-compatible" },
    ]);
    await engine.dispose();
  });

  it("maps a failing /models to a typed error", async () => {
    const engine = engineFor(`${server.origin}/nope`);
    await expect(engine.listModels()).rejects.toMatchObject({ code: "model_not_found" });
    await engine.dispose();
  });
});
