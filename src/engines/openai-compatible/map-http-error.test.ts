import { describe, expect, it } from "vitest";
import { errors } from "undici";
import {
  mapHttpError,
  mapTransportError,
  parseRetryAfterMs,
  readUpstreamError,
} from "./map-http-error.ts";

const context = {
  baseUrl: "https://api.cerebras.ai/v1",
  model: "llama3.1-8b",
  apiKeyEnv: "CEREBRAS_API_KEY",
  apiKeySent: true,
  timeouts: { connectMs: 100, firstByteMs: 200, idleMs: 300 },
};

const openAIBody = (
  message: string,
  code: string | null = null,
  type = "invalid_request_error",
): string => JSON.stringify({ error: { message, type, param: null, code } });

describe("mapHttpError", () => {
  it.each([
    [400, "invalid_request", false],
    [401, "authentication_failed", false],
    [403, "permission_denied", false],
    [404, "model_not_found", false],
    [408, "upstream_timeout", true],
    [409, "upstream_error", true],
    [418, "invalid_request", false],
    [429, "rate_limited", true],
    [500, "upstream_error", true],
    [502, "upstream_error", true],
    [529, "upstream_error", true],
  ] as const)("%i is %s (retryable: %s)", (status, code, retryable) => {
    const error = mapHttpError(
      { status, headers: {}, body: openAIBody("upstream says no") },
      context,
    );
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.status).toBe(status);
    expect(error.message).toContain("upstream says no");
  });

  it("names the model and base URL on 404", () => {
    const error = mapHttpError({ status: 404, headers: {}, body: "" }, context);
    expect(error.message).toContain('"llama3.1-8b"');
    expect(error.message).toContain("https://api.cerebras.ai/v1");
  });

  it("tells which variable to set on 401", () => {
    expect(mapHttpError({ status: 401, headers: {}, body: "" }, context).message).toContain(
      "CEREBRAS_API_KEY",
    );
    expect(
      mapHttpError({ status: 401, headers: {}, body: "" }, { ...context, apiKeySent: false })
        .message,
    ).toMatch(/No API key was sent/);
  });

  it("recognises context-length errors from OpenAI, vLLM and llama-server", () => {
    const bodies = [
      openAIBody("This model's maximum context length is 8192 tokens.", "context_length_exceeded"),
      JSON.stringify({
        object: "error",
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens",
        type: "BadRequestError",
        code: 400,
      }),
      JSON.stringify({
        error: {
          code: 400,
          message: "the request exceeds the available context size",
          type: "exceed_context_size_error",
        },
      }),
    ];
    for (const body of bodies) {
      expect(mapHttpError({ status: 400, headers: {}, body }, context).code).toBe(
        "context_length_exceeded",
      );
    }
  });

  it("does not retry an exhausted quota", () => {
    const error = mapHttpError(
      {
        status: 429,
        headers: {},
        body: openAIBody(
          "You exceeded your current quota",
          "insufficient_quota",
          "insufficient_quota",
        ),
      },
      context,
    );
    expect(error.code).toBe("rate_limited");
    expect(error.retryable).toBe(false);
  });

  it("carries retry-after on retryable errors", () => {
    expect(
      mapHttpError({ status: 429, headers: { "retry-after": "3" }, body: "" }, context)
        .retryAfterMs,
    ).toBe(3000);
    expect(
      mapHttpError({ status: 503, headers: { "retry-after-ms": "250" }, body: "" }, context)
        .retryAfterMs,
    ).toBe(250);
    expect(
      mapHttpError({ status: 400, headers: { "retry-after": "3" }, body: "" }, context)
        .retryAfterMs,
    ).toBeUndefined();
  });
});

describe("parseRetryAfterMs", () => {
  it("reads seconds, milliseconds and HTTP dates", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfterMs({ "retry-after": "1.5" }, now)).toBe(1500);
    expect(parseRetryAfterMs({ "retry-after-ms": "20", "retry-after": "9" }, now)).toBe(20);
    expect(parseRetryAfterMs({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }, now)).toBe(5000);
    expect(parseRetryAfterMs({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }, now)).toBe(0);
    expect(parseRetryAfterMs({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfterMs({}, now)).toBeUndefined();
  });
});

describe("readUpstreamError", () => {
  it("reads the message from each server's error shape", () => {
    expect(readUpstreamError(openAIBody("a")).message).toBe("a");
    expect(readUpstreamError(JSON.stringify({ object: "error", message: "b" })).message).toBe("b");
    expect(readUpstreamError(JSON.stringify({ detail: "c" })).message).toBe("c");
    expect(
      readUpstreamError(JSON.stringify({ detail: [{ msg: "d" }, { msg: "e" }] })).message,
    ).toBe("d; e");
    expect(readUpstreamError(JSON.stringify({ error: "f" })).message).toBe("f");
    expect(readUpstreamError("plain text").message).toBe("plain text");
    expect(readUpstreamError("<html>nope</html>").message).toBeUndefined();
  });
});

describe("mapTransportError", () => {
  it("maps undici timeouts by phase to upstream_timeout", () => {
    expect(mapTransportError(new errors.ConnectTimeoutError(), context)).toMatchObject({
      code: "upstream_timeout",
      retryable: true,
    });
    expect(mapTransportError(new errors.ConnectTimeoutError(), context).message).toContain(
      "100 ms",
    );
    expect(mapTransportError(new errors.HeadersTimeoutError(), context).message).toContain(
      "200 ms",
    );
    expect(mapTransportError(new errors.BodyTimeoutError(), context).message).toContain("300 ms");
  });

  it("maps socket failures to network_error naming the URL", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8000"), {
      code: "ECONNREFUSED",
    });
    const error = mapTransportError(refused, context);
    expect(error).toMatchObject({ code: "network_error", retryable: true });
    expect(error.message).toContain("https://api.cerebras.ai/v1");
    expect(mapTransportError(new errors.SocketError("other side closed"), context).code).toBe(
      "network_error",
    );
    const aggregate = Object.assign(
      new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })]),
      {},
    );
    expect(mapTransportError(aggregate, context).message).toContain("connection refused");
  });
});
