import { describe, expect, it } from "vitest";
import type { Token } from "node-llama-cpp";
import { SuffixIndex } from "./suffix-index.ts";

const tokensOf = (text: string): Token[] =>
  [...text].map((character) => character.charCodeAt(0) as Token);
const oneCharacter = (): number => 1;

describe("SuffixIndex", () => {
  it("finds the longest occurrence of the history's suffix, not the first", () => {
    const text = "a = b; x = b; y = b + 1;";
    const index = new SuffixIndex(tokensOf(text), oneCharacter);
    const match = index.find(tokensOf("let y = b"), 3, { anchor: 0, preferredStart: text.length });
    expect(match).toMatchObject({ end: text.indexOf("y = b") + 5, tokens: 6, characters: 6 });
  });

  it("breaks ties by the prediction, then by nearness after the anchor, then the latest", () => {
    const prompt = "f(x); f(x); ";
    const text = `${prompt}f(x); f(x); `;
    const index = new SuffixIndex(tokensOf(text), oneCharacter);
    const ends = (anchor: number) =>
      index.find(tokensOf("f(x)"), 3, { anchor, preferredStart: prompt.length })?.end;
    expect(ends(0)).toBe(prompt.length + 4);
    expect(ends(prompt.length + 5)).toBe(prompt.length + 10);
    // Behind the anchor only: the nearest behind it ranks last, so the latest wins.
    expect(ends(text.length)).toBe(prompt.length + 10);
  });

  it("counts characters through the token lengths it is given", () => {
    // Tokens 1..4 stand for 4 characters each.
    const index = new SuffixIndex([1, 2, 3, 4, 5, 9] as Token[], () => 4);
    const history = [7, 2, 3, 4] as Token[];
    expect(index.find(history, 12, { anchor: 0, preferredStart: 0 })?.characters).toBe(12);
    expect(index.find(history, 13, { anchor: 0, preferredStart: 0 })).toBeUndefined();
  });

  it("needs a token after the match to draft", () => {
    const index = new SuffixIndex(tokensOf("abcdef"), oneCharacter);
    expect(index.find(tokensOf("def"), 3, { anchor: 0, preferredStart: 0 })).toBeUndefined();
    expect(index.find(tokensOf("cde"), 3, { anchor: 0, preferredStart: 0 })?.end).toBe(5);
  });
});
