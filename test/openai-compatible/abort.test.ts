// Cancellation: aborting the signal (or simply not reading on) must destroy the upstream request,
// which the server sees as a closed connection, and the stream must end "cancelled" with the
// partial text, usage and timings.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/engines/engine.ts";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { OpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { engineFor, userRequest } from "./engine-for-replay.ts";
import { ReplayServer } from "./replay-server.ts";

const promptly = 5_000;
let server: ReplayServer;
let engine: OpenAICompatibleEngine;

beforeAll(async () => {
  server = await ReplayServer.start();
  engine = engineFor(server.baseUrl);
});
afterAll(async () => {
  await engine.dispose();
  await server.close();
});

describe("aborting a stream", () => {
  it(
    "ends cancelled with the partial text, usage and timings, and closes the upstream",
    { timeout: promptly },
    async () => {
      server.respondWith({
        fixture: "openai-text.sse",
        chunkDelayMs: 15,
        randomChunks: { seed: 5, maxChunkBytes: 200 },
      });
      const controller = new AbortController();
      const events: EngineEvent[] = [];
      let textBeforeAbort = "";
      for await (const event of engine.stream(userRequest, { signal: controller.signal })) {
        events.push(event);
        if (event.type === "text-delta" && !controller.signal.aborted) {
          textBeforeAbort += event.text;
          controller.abort();
        }
      }
      const finish = events.at(-1);
      expect(finish).toEqual({ type: "finish", reason: "cancelled" });
      const text = events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
      expect(text).toBe(textBeforeAbort);
      expect(text.length).toBeGreaterThan(0);
      expect(events.map((event) => event.type).slice(-3)).toEqual(["usage", "timings", "finish"]);
      const usage = events.find((event) => event.type === "usage");
      expect(usage?.type === "usage" && usage.usage.outputTokens).toBeGreaterThan(0);
      expect(usage?.type === "usage" && usage.usage.inputTokens).toBeGreaterThan(0);
      const timings = events.find((event) => event.type === "timings");
      expect(
        timings?.type === "timings" && timings.timings.timeToFirstTokenMs,
      ).toBeGreaterThanOrEqual(0);
      await expect(server.chatRequests().at(-1)?.closedEarly).resolves.toBe(true);
    },
  );

  it("a reader that stops iterating closes the upstream too", { timeout: promptly }, async () => {
    server.respondWith({
      fixture: "openai-text.sse",
      chunkDelayMs: 15,
      randomChunks: { seed: 9, maxChunkBytes: 200 },
    });
    for await (const event of engine.stream(userRequest)) {
      if (event.type === "text-delta") break;
    }
    await expect(server.chatRequests().at(-1)?.closedEarly).resolves.toBe(true);
  });

  it(
    "an abort while waiting for headers ends cancelled and closes the upstream",
    { timeout: promptly },
    async () => {
      server.respondWith({ fixture: "openai-text.sse", headersDelayMs: 30_000 });
      const controller = new AbortController();
      const before = server.chatRequests().length;
      const collected = collectStream(engine.stream(userRequest, { signal: controller.signal }));
      while (server.chatRequests().length === before)
        await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      const result = await collected;
      expect(result.finishReason).toBe("cancelled");
      expect(result.error).toBeUndefined();
      expect(result.timings?.timeToFirstTokenMs).toBeNull();
      await expect(server.chatRequests().at(-1)?.closedEarly).resolves.toBe(true);
    },
  );

  it("an already aborted signal sends nothing", { timeout: promptly }, async () => {
    const before = server.requests.length;
    const result = await collectStream(engine.stream(userRequest, { signal: AbortSignal.abort() }));
    expect(result.finishReason).toBe("cancelled");
    expect(result.usage?.outputTokens).toBe(0);
    expect(server.requests.length).toBe(before);
  });
});
