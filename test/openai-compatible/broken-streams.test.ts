// Every way an upstream can fail, each ending the stream promptly with the exact SparkError code:
// wrong content type, truncated JSON, a stream cut before it finished, stalls before headers and
// mid-body, reset sockets, refused connections, and the HTTP statuses with their JSON bodies.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream, type CollectedStream } from "../../src/engines/collect-stream.ts";
import type { EngineEvent } from "../../src/engines/engine.ts";
import type { OpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { engineFor, userRequest } from "./engine-for-replay.ts";
import { readFixture, ReplayServer, type ReplayResponse } from "./replay-server.ts";

/** Generous next to the 300 ms upstream timeouts: a hang fails the test instead of stalling the suite. */
const promptly = 5_000;

let server: ReplayServer;
let engine: OpenAICompatibleEngine;

beforeAll(async () => {
  server = await ReplayServer.start();
  engine = engineFor(server.baseUrl, {
    timeouts: { connectMs: 300, firstByteMs: 300, idleMs: 300 },
  });
});
afterAll(async () => {
  await engine.dispose();
  await server.close();
});

async function replay(response: ReplayResponse): Promise<CollectedStream> {
  server.respondWith(response);
  return collectStream(engine.stream(userRequest));
}

const openaiText = readFixture("openai-text.sse").toString("utf8");
/** Byte offset just after the nth complete SSE event of the OpenAI text fixture. */
function afterEvent(count: number): number {
  let offset = 0;
  for (let index = 0; index < count; index += 1) offset = openaiText.indexOf("\n\n", offset) + 2;
  return Buffer.byteLength(openaiText.slice(0, offset));
}

function expectEnding(result: CollectedStream): void {
  const types = result.events.map((event) => event.type);
  expect(types.slice(-3)).toEqual(["usage", "timings", "finish"]);
  expect(types.filter((type) => type === "finish")).toHaveLength(1);
}

describe("broken upstream streams", () => {
  it("a 200 with text/html is a protocol_error", { timeout: promptly }, async () => {
    const result = await replay({
      contentType: "text/html",
      body: "<html>Welcome to nginx!</html>",
    });
    expect(result.error?.code).toBe("protocol_error");
    expect(result.error?.message).toContain("text/html");
    expectEnding(result);
  });

  it("truncated JSON in a data line is a protocol_error", { timeout: promptly }, async () => {
    const result = await replay({
      fixture: "openai-text.sse",
      truncateAfterBytes: afterEvent(3) + 40,
    });
    expect(result.text).toBe("Hello!");
    expect(result.error?.code).toBe("protocol_error");
    expect(result.error?.message).toMatch(/not valid JSON/);
    expectEnding(result);
  });

  it(
    "a stream that ends without finish_reason or [DONE] is a protocol_error",
    { timeout: promptly },
    async () => {
      const result = await replay({
        fixture: "openai-text.sse",
        truncateAfterBytes: afterEvent(4),
      });
      expect(result.text).toBe("Hello! How");
      expect(result.finishReason).toBe("error");
      expect(result.error?.code).toBe("protocol_error");
      expect(result.error?.message).toContain("upstream closed the stream before it finished");
      expectEnding(result);
    },
  );

  it(
    "a server that stalls mid-stream is an upstream_timeout after idleMs",
    { timeout: promptly },
    async () => {
      const result = await replay({ fixture: "openai-text.sse", stallAfterBytes: afterEvent(3) });
      expect(result.text).toBe("Hello!");
      expect(result.error?.code).toBe("upstream_timeout");
      expect(result.error?.retryable).toBe(true);
      expect(result.error?.message).toContain("300 ms");
      expect(result.usage?.outputTokens).toBeGreaterThan(0);
      expectEnding(result);
    },
  );

  it(
    "a server that never sends headers is an upstream_timeout after firstByteMs",
    { timeout: promptly },
    async () => {
      const startedAt = performance.now();
      const result = await replay({ fixture: "openai-text.sse", headersDelayMs: 30_000 });
      // On undici's own 499 ms-tick clock a lone 300 ms headersTimeout fires after ~998 ms; the
      // engine's native timer fires at 300 ms. The bound leaves 600 ms for a loaded machine.
      expect(performance.now() - startedAt).toBeLessThan(900);
      expect(result.error?.code).toBe("upstream_timeout");
      expect(result.error?.retryable).toBe(true);
      expect(result.timings?.timeToFirstTokenMs).toBeNull();
      expectEnding(result);
    },
  );

  it("a socket reset mid-stream is a retryable network_error", { timeout: promptly }, async () => {
    const result = await replay({ fixture: "openai-text.sse", destroyAfterBytes: afterEvent(3) });
    expect(result.text).toBe("Hello!");
    expect(result.error?.code).toBe("network_error");
    expect(result.error?.retryable).toBe(true);
    expectEnding(result);
  });

  it(
    "a line longer than maxEventBytes is an upstream_error, and the upstream is let go",
    { timeout: promptly },
    async () => {
      const capped = engineFor(server.baseUrl, { maxEventBytes: 64 * 1024 });
      // A line that never ends: without the cap the engine would buffer all of it.
      server.respondWith({
        contentType: "text/event-stream",
        body: `data: {"choices":[{"delta":{"content":"${"a".repeat(1024 * 1024)}`,
        stallAfterBytes: 512 * 1024,
      });
      const result = await collectStream(capped.stream(userRequest));
      await capped.dispose();
      expect(result.error?.code).toBe("upstream_error");
      expect(result.error?.retryable).toBe(true);
      expect(result.error?.message).toContain("65536");
      expect(await server.requests.at(-1)?.closedEarly).toBe(true);
      expectEnding(result);
    },
  );

  it("a refused connection is a network_error naming the URL", { timeout: promptly }, async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = engineFor(`http://127.0.0.1:${port}/v1`, {
      timeouts: { connectMs: 300, firstByteMs: 300, idleMs: 300 },
    });
    const result = await collectStream(refused.stream(userRequest));
    await refused.dispose();
    expect(result.error?.code).toBe("network_error");
    expect(result.error?.retryable).toBe(true);
    expect(result.error?.message).toContain(`http://127.0.0.1:${port}/v1`);
    expectEnding(result);
  });
});

describe("HTTP error statuses", () => {
  const errorBody = (message: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({
      error: { message, type: "invalid_request_error", param: null, code: null, ...extra },
    });

  const cases: Array<{
    status: number;
    body: string;
    headers?: Record<string, string>;
    code: string;
    retryable: boolean;
    contains: string;
  }> = [
    {
      status: 400,
      body: errorBody("Invalid value for 'temperature'"),
      code: "invalid_request",
      retryable: false,
      contains: "Invalid value for 'temperature'",
    },
    {
      status: 400,
      body: JSON.stringify({
        object: "error",
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.",
        type: "BadRequestError",
        param: null,
        code: 400,
      }),
      code: "context_length_exceeded",
      retryable: false,
      contains: "maximum context length",
    },
    {
      status: 401,
      body: errorBody("Incorrect API key provided: sk-abc***xyz."),
      code: "authentication_failed",
      retryable: false,
      contains: "Incorrect API key",
    },
    {
      status: 403,
      body: errorBody("Project does not have access to model"),
      code: "permission_denied",
      retryable: false,
      contains: "does not have access",
    },
    {
      status: 404,
      body: errorBody("The model `replay-model` does not exist", { code: "model_not_found" }),
      code: "model_not_found",
      retryable: false,
      contains: '"replay-model"',
    },
    {
      status: 429,
      body: errorBody("Rate limit reached", { type: "requests" }),
      headers: { "retry-after": "2" },
      code: "rate_limited",
      retryable: true,
      contains: "Rate limit reached",
    },
    {
      status: 500,
      body: errorBody("The server had an error while processing your request."),
      code: "upstream_error",
      retryable: true,
      contains: "server had an error",
    },
    {
      status: 503,
      body: "<html><body>Service Unavailable</body></html>",
      code: "upstream_error",
      retryable: true,
      contains: "503",
    },
    { status: 408, body: "", code: "upstream_timeout", retryable: true, contains: "408" },
  ];

  for (const testCase of cases) {
    it(`${testCase.status} is ${testCase.code}`, { timeout: promptly }, async () => {
      const result = await replay({
        status: testCase.status,
        contentType: testCase.body.startsWith("{") ? "application/json" : "text/html",
        body: testCase.body,
        ...(testCase.headers === undefined ? {} : { headers: testCase.headers }),
      });
      expect(result.finishReason).toBe("error");
      expect(result.error?.code).toBe(testCase.code);
      expect(result.error?.retryable).toBe(testCase.retryable);
      expect(result.error?.status).toBe(testCase.status);
      expect(result.error?.message).toContain(testCase.contains);
      expectEnding(result);
    });
  }

  it("404 names the model and the base URL", { timeout: promptly }, async () => {
    const result = await replay({
      status: 404,
      contentType: "application/json",
      body: errorBody("not found"),
    });
    expect(result.error?.message).toContain("replay-model");
    expect(result.error?.message).toContain(server.baseUrl);
  });

  it("429 carries retry-after as milliseconds", { timeout: promptly }, async () => {
    const result = await replay({
      status: 429,
      contentType: "application/json",
      body: errorBody("slow down"),
      headers: { "retry-after-ms": "1500" },
    });
    expect(result.error?.retryAfterMs).toBe(1500);
  });
});

describe("requests that never reach the upstream", () => {
  it("an empty message list is invalid_request with no I/O", { timeout: promptly }, async () => {
    const before = server.requests.length;
    const result = await collectStream(engine.stream({ messages: [] }));
    expect(result.error?.code).toBe("invalid_request");
    expect(server.requests.length).toBe(before);
    expectEnding(result);
  });

  it(
    "a preset whose key is missing is authentication_failed naming the variable",
    { timeout: promptly },
    async () => {
      const keyless = engineFor(server.baseUrl, { preset: "cerebras", env: {}, warmUp: true });
      const before = server.requests.length;
      const result = await collectStream(keyless.stream(userRequest));
      await keyless.dispose();
      expect(result.error?.code).toBe("authentication_failed");
      expect(result.error?.message).toContain("CEREBRAS_API_KEY");
      expect(server.requests.length).toBe(before);
    },
  );

  it("a disposed engine answers engine_disposed", { timeout: promptly }, async () => {
    const disposed = engineFor(server.baseUrl);
    await disposed.dispose();
    const result = await collectStream(disposed.stream(userRequest));
    expect(result.error?.code).toBe("engine_disposed");
    await expect(disposed.listModels()).rejects.toMatchObject({ code: "engine_disposed" });
  });

  it(
    "disposing an engine ends its running streams with engine_disposed",
    { timeout: promptly },
    async () => {
      const disposable = engineFor(server.baseUrl);
      server.respondWith({ fixture: "openai-text.sse", stallAfterBytes: afterEvent(3) });
      // Dispose once the text before the stall has arrived, while the server holds the stream
      // open (waiting on the text itself, not a timer, holds however loaded the machine is).
      let textSoFar = "";
      let allTextArrived!: () => void;
      const textArrived = new Promise<void>((resolve) => (allTextArrived = resolve));
      async function* watched(): AsyncGenerator<EngineEvent> {
        for await (const event of disposable.stream(userRequest)) {
          if (event.type === "text-delta") {
            textSoFar += event.text;
            if (textSoFar === "Hello!") allTextArrived();
          }
          yield event;
        }
      }
      const collected = collectStream(watched());
      await textArrived;
      await disposable.dispose();
      const result = await collected;
      expect(result.text).toBe("Hello!");
      expect(result.error?.code).toBe("engine_disposed");
      expectEnding(result);
    },
  );
});
