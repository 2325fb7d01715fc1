import { describe, expect, it } from "vitest";
import { mapFinishReason } from "./map-finish-reason.ts";

describe("mapFinishReason", () => {
  it.each([
    ["stop", "stop"],
    ["length", "length"],
    ["tool_calls", "tool_calls"],
    ["function_call", "tool_calls"],
    ["eos", "stop"],
    ["something_new", "stop"],
  ] as const)("maps %s to %s", (upstream, expected) => {
    const mapped = mapFinishReason(upstream);
    expect(mapped.reason).toBe(expected);
    expect(mapped.error).toBeUndefined();
  });

  it("turns content_filter into a non-retryable upstream error", () => {
    const mapped = mapFinishReason("content_filter");
    expect(mapped.reason).toBe("error");
    expect(mapped.error?.code).toBe("upstream_error");
    expect(mapped.error?.retryable).toBe(false);
    expect(mapped.error?.message).toMatch(/content filter/);
  });

  it("turns an upstream error finish into a retryable upstream error", () => {
    const mapped = mapFinishReason("error");
    expect(mapped.reason).toBe("error");
    expect(mapped.error?.code).toBe("upstream_error");
    expect(mapped.error?.retryable).toBe(true);
  });
});
