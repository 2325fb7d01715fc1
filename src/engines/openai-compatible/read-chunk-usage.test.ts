import { describe, expect, it } from "vitest";
import { mergeUsage, readChunkUsage } from "./read-chunk-usage.ts";

describe("readChunkUsage", () => {
  it("reads OpenAI usage with cache and prediction details", () => {
    expect(
      readChunkUsage({
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          prompt_tokens_details: { cached_tokens: 8 },
          completion_tokens_details: {
            accepted_prediction_tokens: 3,
            rejected_prediction_tokens: 1,
          },
        },
      }),
    ).toEqual({
      inputTokens: 10,
      cachedInputTokens: 8,
      outputTokens: 5,
      acceptedPredictionTokens: 3,
      rejectedPredictionTokens: 1,
    });
  });

  it("reads Groq's x_groq.usage", () => {
    expect(
      readChunkUsage({ x_groq: { usage: { prompt_tokens: 4, completion_tokens: 2 } } }),
    ).toEqual({ inputTokens: 4, outputTokens: 2 });
  });

  it("reads llama-server timings when usage is absent", () => {
    expect(readChunkUsage({ timings: { prompt_n: 2, cache_n: 30, predicted_n: 6 } })).toEqual({
      inputTokens: 32,
      cachedInputTokens: 30,
      outputTokens: 6,
    });
  });

  it("returns undefined for a chunk without counts, and null usage", () => {
    expect(readChunkUsage({ choices: [] })).toBeUndefined();
    expect(readChunkUsage({ usage: null })).toBeUndefined();
  });

  it("merges later counts over earlier ones, keeping fields the later chunk lacks", () => {
    expect(mergeUsage({ inputTokens: 1, cachedInputTokens: 1 }, { inputTokens: 2 })).toEqual({
      inputTokens: 2,
      cachedInputTokens: 1,
    });
    expect(mergeUsage({ inputTokens: 1 }, undefined)).toEqual({ inputTokens: 1 });
  });
});
