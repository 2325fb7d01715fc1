import { describe, expect, it } from "vitest";
import type { Token } from "node-llama-cpp";
import { PromptLookup, type PromptLookupOptions } from "./prompt-lookup.ts";

/** One token per character, like a byte-level vocabulary: the text stays readable. */
const tokensOf = (text: string): Token[] =>
  [...text].map((character) => character.charCodeAt(0) as Token);
const textOf = (tokens: readonly Token[]): string => String.fromCharCode(...tokens);

const prompt = "<s>Rename `count` to `total`.\n";
const file =
  "let count = 0;\nfunction add(value) {\n  count += value;\n  return count;\n}\nexport { add, count };\n";

/**
 * Decodes `output` the way speculative decoding does: each step drafts from the history, keeps
 * the draft up to its first wrong token, and adds one token the model produced itself.
 */
function decode(lookup: PromptLookup, promptText: string, output: string): number {
  const history = tokensOf(promptText);
  const expected = tokensOf(output);
  let steps = 0;
  for (let produced = 0; produced < expected.length; steps += 1) {
    const draft = lookup.draft(history);
    let accepted = 0;
    while (accepted < draft.length && draft[accepted] === expected[produced + accepted])
      accepted += 1;
    const step = expected.slice(produced, produced + accepted + 1);
    history.push(...step);
    produced += step.length;
  }
  lookup.draft(history);
  return steps;
}

function lookupFor(promptText: string, prediction: string, options: PromptLookupOptions = {}) {
  return new PromptLookup(tokensOf(promptText + prediction), tokensOf(promptText).length, options);
}

describe("PromptLookup", () => {
  it("drafts the prediction from its start, doubling the draft while drafts are accepted", () => {
    const lookup = lookupFor(prompt + file, file, { maxDraftTokens: 16 });
    const history = tokensOf(prompt + file);
    const first = lookup.draft(history);
    expect(textOf(first)).toBe("let ");
    history.push(...tokensOf("let c"));
    expect(textOf(lookup.draft(history))).toBe("ount = 0");
    history.push(...tokensOf("ount = 0;"));
    expect(textOf(lookup.draft(history))).toBe("\nfunction add(va");
    expect(lookup.statistics.acceptedAt.slice(0, 8)).toEqual([2, 2, 2, 2, 1, 1, 1, 1]);
    expect(lookup.statistics.draftedAt.slice(0, 8)).toEqual([2, 2, 2, 2, 1, 1, 1, 1]);
  });

  it("drafts most of a verbatim copy and wastes almost nothing", () => {
    const lookup = lookupFor(prompt + file, file);
    decode(lookup, prompt + file, file);
    const { acceptedTokens, draftedTokens } = lookup.statistics;
    expect(acceptedTokens / file.length).toBeGreaterThan(0.85);
    expect(draftedTokens - acceptedTokens).toBeLessThanOrEqual(1);
  });

  it("replays a rename after seeing it once, so later occurrences are drafted as renamed", () => {
    const renamed = file.replaceAll("count", "total");
    const lookup = lookupFor(prompt + file, file);
    decode(lookup, prompt + file, renamed);
    const { acceptedTokens, draftedTokens } = lookup.statistics;
    // Four occurrences; only the first one is a surprise.
    expect(draftedTokens - acceptedTokens).toBeLessThan(12);
    expect(acceptedTokens / renamed.length).toBeGreaterThan(0.6);
  });

  it("stops replaying an edit the output keeps declining", () => {
    const long = file.repeat(3);
    const lookup = lookupFor(prompt + long, long);
    // The first of 12 occurrences is renamed, the rest kept: replaying would fail every time.
    decode(lookup, prompt + long, long.replace("count", "total"));
    const { acceptedTokens, draftedTokens } = lookup.statistics;
    // The surprise and two declined replays cost at most a draft each; then replaying stops.
    expect(draftedTokens - acceptedTokens).toBeLessThanOrEqual(3 * 16);
    expect(acceptedTokens / long.length).toBeGreaterThan(0.8);
  });

  it("prefers the prediction to an equally long match in the prompt", () => {
    // The prompt holds the file too; the draft must come from the prediction's copy.
    const lookup = lookupFor(prompt + file, file.replace("return", "yield"));
    const history = tokensOf(prompt + file + file.slice(0, file.indexOf("return") - 1));
    lookup.draft(tokensOf(prompt + file));
    expect(textOf(lookup.draft(history)).startsWith(" yield")).toBe(true);
  });

  it("drafts nothing from a suffix shorter than the minimum match", () => {
    const lookup = lookupFor("say hello world to everyone\n", "", { minimumMatchCharacters: 12 });
    expect(lookup.draft(tokensOf("I said hello"))).toEqual([]);
    expect(textOf(lookup.draft(tokensOf("I say hello world")))).toBe(" to ");
  });

  it("pauses after a mostly rejected draft, longer each time drafts keep failing", () => {
    const lookup = lookupFor("", "the quick brown fox jumps over the lazy dog", {
      minimumMatchCharacters: 4,
    });
    const history = tokensOf("so the quick brown");
    expect(lookup.draft(history).length).toBeGreaterThan(0);
    history.push(...tokensOf("!"));
    // 8 plain tokens without a draft, though the text matches again.
    for (let step = 0; step < 7; step += 1) {
      history.push(...tokensOf(" "));
      expect(lookup.draft([...history, ...tokensOf("the quick")])).toEqual([]);
    }
    expect(lookup.draft(tokensOf("so the quick brown! ........ the quick")).length).toBeGreaterThan(
      0,
    );
  });

  it("never drafts past the end of the lookup text", () => {
    const lookup = lookupFor("<s>", "abcdefghijklmnop", { minimumMatchCharacters: 3 });
    expect(textOf(lookup.draft(tokensOf("xxabcdefghijklm")))).toBe("nop");
    expect(lookup.draft(tokensOf("xxabcdefghijklmnop"))).toEqual([]);
  });
});
