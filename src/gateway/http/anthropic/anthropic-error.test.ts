import { describe, expect, it } from "vitest";
import { SparkError } from "../../../protocol/spark-error.ts";
import { WireError } from "../../wire/wire-error.ts";
import { describeAnthropicError } from "./anthropic-error.ts";

describe("describeAnthropicError", () => {
  it.each([
    [new WireError("invalid_request", "bad"), 400, "invalid_request_error"],
    [new WireError("authentication_failed", "no key"), 401, "authentication_error"],
    [new WireError("model_not_found", "no model"), 404, "not_found_error"],
    [
      new WireError("invalid_request", "big", { status: 413, wireCode: "request_too_large" }),
      413,
      "request_too_large",
    ],
    [new SparkError("rate_limited", "slow down"), 429, "rate_limit_error"],
    [new SparkError("engine_busy", "busy"), 529, "overloaded_error"],
    [new SparkError("upstream_error", "upstream"), 502, "api_error"],
  ])("%s → %i %s", (error, status, type) => {
    const described = describeAnthropicError(error);
    expect(described.status).toBe(status);
    expect(described.body).toEqual({
      type: "error",
      error: { type, message: expect.any(String) as unknown },
    });
  });
});
