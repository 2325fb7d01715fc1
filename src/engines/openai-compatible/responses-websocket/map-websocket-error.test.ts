// Error frames in both shapes (OpenAI's WebSocket mode nests under `error` with `status`; the SDK's
// ResponseErrorEvent is flat) map to the same SparkErrors as the HTTP statuses they stand for.
import { describe, expect, it } from "vitest";
import { mapWebSocketError } from "./map-websocket-error.ts";

const context = { baseUrl: "https://api.openai.com/v1", model: "gpt-5.3-codex" };

describe("mapWebSocketError", () => {
  it.each([
    [
      "nested 429 with retry-after header",
      {
        type: "error",
        status: 429,
        error: { code: "rate_limit_exceeded", message: "slow down" },
        headers: { "Retry-After": "2" },
      },
      { code: "rate_limited", retryable: true, retryAfterMs: 2_000 },
    ],
    [
      "Spark's retry_after seconds",
      {
        type: "error",
        status: 429,
        error: { code: "rate_limit_exceeded", message: "m", retry_after: 1 },
      },
      { code: "rate_limited", retryAfterMs: 1_000 },
    ],
    [
      "flat SDK shape without status",
      { type: "error", code: "rate_limit_exceeded", message: "m", param: null, sequence_number: 3 },
      { code: "rate_limited", retryable: true },
    ],
    [
      "exhausted quota is not retried",
      { type: "error", status: 429, error: { code: "insufficient_quota", message: "pay" } },
      { code: "rate_limited", retryable: false },
    ],
    [
      "context length",
      {
        type: "error",
        status: 400,
        error: { code: "context_length_exceeded", message: "too long" },
      },
      { code: "context_length_exceeded", retryable: false },
    ],
    [
      "bad key",
      { type: "error", status: 401, error: { code: "invalid_api_key", message: "no" } },
      { code: "authentication_failed", retryable: false },
    ],
    [
      "server error",
      { type: "error", error: { code: "server_error", message: "oops" } },
      { code: "upstream_error", retryable: true },
    ],
    [
      "unknown code without status",
      { type: "error", error: { code: "something_new", message: "what" } },
      { code: "upstream_error", retryable: true },
    ],
  ])("%s", (_name, frame, expected) => {
    expect(mapWebSocketError(frame, context)).toMatchObject(expected);
  });
});
