// The nesting scan counts only structure: brackets inside strings (escaped quotes included) do not count.
import { describe, expect, it } from "vitest";
import { checkJsonDepth } from "./json-depth.ts";

describe("checkJsonDepth", () => {
  it("accepts nesting up to the limit and refuses one level more", () => {
    expect(() => checkJsonDepth("[[[]]]", 3)).not.toThrow();
    expect(() => checkJsonDepth('{"a":[{"b":1}]}', 3)).not.toThrow();
    expect(() => checkJsonDepth('{"a":[{"b":[]}]}', 3)).toThrow(
      expect.objectContaining({ wireCode: "json_too_deep", status: 400 }),
    );
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(() => checkJsonDepth(JSON.stringify({ text: "[[[[{{{{" }), 1)).not.toThrow();
    expect(() => checkJsonDepth(JSON.stringify({ text: '\\"[[[[' }), 1)).not.toThrow();
    expect(() => checkJsonDepth(JSON.stringify({ text: '"', list: [[1]] }), 2)).toThrow();
  });

  it("ends a string only at a quote after an even run of backslashes", () => {
    // x\\ ends in an escaped backslash: the quote after it closes the string, so the brackets
    // that follow are structure.
    expect(() => checkJsonDepth('{"a":"x\\\\","b":[[1]]}', 2)).toThrow();
    expect(() => checkJsonDepth('{"a":"x\\\\","b":[1]}', 2)).not.toThrow();
    // \\\" is an escaped backslash, then an escaped quote: the string goes on over the brackets.
    expect(() => checkJsonDepth('{"a":"\\\\\\"[[[[","b":1}', 1)).not.toThrow();
    expect(() =>
      checkJsonDepth(JSON.stringify({ text: "\\".repeat(5) + '"[[[' }), 1),
    ).not.toThrow();
  });

  it("treats an unterminated string as running to the end", () => {
    expect(() => checkJsonDepth('{"a":"[[[[[[', 1)).not.toThrow();
  });
});
