import { describe, expect, it } from "vitest";
import { formatTokens } from "./format-tokens.ts";

describe("formatTokens", () => {
  it("writes small counts whole, thousands with one decimal below 10k, a dash when unknown", () => {
    expect([0, 999, 1000, 1234, 9_999, 10_000, 128_000].map(formatTokens)).toEqual([
      "0",
      "999",
      "1.0k",
      "1.2k",
      "10.0k",
      "10k",
      "128k",
    ]);
    expect(formatTokens(null)).toBe("–");
    expect(formatTokens(undefined)).toBe("–");
  });
});
