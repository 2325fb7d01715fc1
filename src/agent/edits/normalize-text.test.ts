import { describe, expect, it } from "vitest";
import {
  MATCH_RUNGS,
  mapUnicodePunctuation,
  normalizeLine,
  normalizeText,
} from "./normalize-text.ts";

describe("normalizeLine", () => {
  it("keeps the exact rung untouched", () => {
    expect(normalizeLine("  a  b  ", "exact")).toBe("  a  b  ");
  });

  it("drops only trailing whitespace on the trailing-whitespace rung", () => {
    expect(normalizeLine("  a  b \t\r", "trailing-whitespace")).toBe("  a  b");
  });

  it("drops indentation and collapses runs of whitespace on the whitespace rung", () => {
    expect(normalizeLine("\t  a   b\t c  ", "whitespace")).toBe("a b c");
  });

  it("maps typographic quotes, dashes and non-breaking spaces on the unicode rung", () => {
    expect(normalizeLine("\u00A0say \u201Chi\u201D \u2014 it\u2019s \u2013 ok", "unicode")).toBe(
      'say "hi" - it\'s - ok',
    );
    expect(mapUnicodePunctuation("a\u2212b")).toBe("a-b");
  });
});

describe("normalizeText", () => {
  const sample = "  if (x)  {\t\n\u00A0\u00A0return \u201Cy\u201D;  \n}";

  it("agrees with normalizeLine line by line on every rung", () => {
    for (const rung of MATCH_RUNGS) {
      const expected = sample
        .split("\n")
        .map((line) => normalizeLine(line, rung))
        .join("\n");
      expect(normalizeText(sample, rung).text).toBe(expected);
    }
  });

  it("maps every normalised character back to the original character it came from", () => {
    const { text, sourceIndex } = normalizeText(sample, "whitespace");
    for (let index = 0; index < text.length; index += 1) {
      const original = sample.charAt(sourceIndex[index] ?? -1);
      if (text.charAt(index) === " ") expect(original).toMatch(/\s/);
      else expect(original).toBe(text.charAt(index));
    }
    expect(sourceIndex[text.length]).toBe(sample.length);
  });
});
