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
});
