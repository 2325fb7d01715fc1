import { describe, expect, it } from "vitest";
import { completeUsage, estimateInputTokens } from "./estimate-usage.ts";

const messages = [{ role: "user" as const, content: "x".repeat(40) }];

describe("completeUsage", () => {
  it("keeps what the upstream reported", () => {
    expect(
      completeUsage({ inputTokens: 7, cachedInputTokens: 2, outputTokens: 3 }, messages, {
        deltaCount: 99,
        characterCount: 999,
      }),
    ).toEqual({
      inputTokens: 7,
      cachedInputTokens: 2,
      outputTokens: 3,
    });
  });

  it("estimates what it did not: input from the prompt, output from the streamed deltas", () => {
    expect(estimateInputTokens(messages)).toBe(10);
    expect(completeUsage(undefined, messages, { deltaCount: 6, characterCount: 12 })).toEqual({
      inputTokens: 10,
      cachedInputTokens: 0,
      outputTokens: 6,
    });
    expect(
      completeUsage(undefined, messages, { deltaCount: 2, characterCount: 40 }).outputTokens,
    ).toBe(10);
  });
});
