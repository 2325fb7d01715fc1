import { describe, expect, it } from "vitest";
import type { Token } from "node-llama-cpp";
import { lookupCeiling } from "../../bench/lib/lookup-ceiling.ts";

const tokensOf = (text: string): Token[] =>
  [...text].map((character) => character.charCodeAt(0) as Token);

describe("lookupCeiling", () => {
  it("drafts a verbatim copy in full-length steps after one sampled token each", () => {
    const prompt = tokensOf("copy: abcdefghij\n");
    const output = tokensOf("abcdefghij");
    const ceiling = lookupCeiling([...prompt, ...output], [...prompt, ...output], prompt.length, 4);
    // Steps: a + bcde, f + ghij: 8 of 10 tokens drafted.
    expect(ceiling).toEqual({
      outputTokens: 10,
      steps: 2,
      draftedTokens: 8,
      acceptedAt: [2, 2, 2, 2],
    });
  });

  it("uses the longest match, choosing among equally long ones the continuation that is right", () => {
    // "x" occurs twice, equally long: the oracle takes the continuation that is right.
    expect(lookupCeiling(tokensOf("xa xb"), tokensOf("xb"), 1, 4).draftedTokens).toBe(1);
    // "1x" is longer than " x": its wrong continuation is the ceiling's, though "xb" exists.
    expect(lookupCeiling(tokensOf("1xa 2xb"), tokensOf("1xb"), 2, 4).draftedTokens).toBe(0);
    expect(lookupCeiling(tokensOf("1xa 2xb"), tokensOf("2xb"), 2, 4).draftedTokens).toBe(1);
  });

  it("drafts nothing for text the lookup does not hold", () => {
    const ceiling = lookupCeiling(tokensOf("abc"), tokensOf("abcXYZ"), 3, 4);
    expect(ceiling).toMatchObject({ outputTokens: 3, steps: 3, draftedTokens: 0 });
  });
});
