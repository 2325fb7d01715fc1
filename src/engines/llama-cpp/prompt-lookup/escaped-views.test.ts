import { describe, expect, it } from "vitest";
import type { Token } from "node-llama-cpp";
import { EscapedViews, jsonStringContent, withoutLineNumbers } from "./escaped-views.ts";

/** One token per character: the views stay readable. */
const tokensOf = (text: string): Token[] =>
  [...text].map((character) => character.charCodeAt(0) as Token);
const textOf = (tokens: readonly Token[]): string => String.fromCharCode(...tokens);

describe("EscapedViews", () => {
  it("views a text as a JSON string quotes it, and read_file's numbered lines without numbers", () => {
    let tokenized = 0;
    const views = new EscapedViews((text) => {
      tokenized += 1;
      return tokensOf(text);
    });
    const file = 'const a = "x";\n\tif (a) return;\n';
    expect(textOf(views.of(file))).toBe('const a = \\"x\\";\\n\\tif (a) return;\\n');
    const numbered = '1\tconst a = "x";\n2\tif (a) return;';
    expect(textOf(views.of(numbered))).toBe(
      '1\\tconst a = \\"x\\";\\n2\\tif (a) return;' + 'const a = \\"x\\";\\nif (a) return;',
    );
    // An agent resends its conversation every step: a text seen before is not tokenized again.
    const before = tokenized;
    views.of(file);
    expect(tokenized).toBe(before);
  });

  it("adds nothing where the prompt's own tokens already are what a call writes, or the text is too short to match", () => {
    const views = new EscapedViews(tokensOf);
    expect(views.of("plain words, nothing to escape here")).toEqual([]);
    expect(views.of("a\nb")).toEqual([]);
  });

  it("strips line numbers only when every line has one", () => {
    expect(withoutLineNumbers("  9\tx\n 10\ty\n")).toBe("x\ny\n");
    expect(withoutLineNumbers("9\tx\nnot numbered")).toBeUndefined();
    expect(withoutLineNumbers("9\tonly one line")).toBeUndefined();
    expect(jsonStringContent('tab\there "q" \\ \u0001')).toBe('tab\\there \\"q\\" \\\\ \\u0001');
  });
});
