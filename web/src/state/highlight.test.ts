import { describe, expect, it } from "vitest";
import { highlightCode } from "./highlight.ts";

describe("highlightCode", () => {
  it("marks keywords, strings, numbers and comments, and loses no character", () => {
    const code = 'const name = "a // b"; // note\nreturn 42;';
    const tokens = highlightCode(code, "ts");
    expect(tokens.map((token) => token.text).join("")).toBe(code);
    expect(tokens.filter((token) => token.kind !== "plain")).toEqual([
      { kind: "keyword", text: "const" },
      { kind: "string", text: '"a // b"' },
      { kind: "comment", text: "// note" },
      { kind: "keyword", text: "return" },
      { kind: "number", text: "42" },
    ]);
  });

  it("uses # comments for shell and Python only", () => {
    expect(highlightCode("# hi", "bash")).toEqual([{ kind: "comment", text: "# hi" }]);
    expect(highlightCode("#include", "c").some((token) => token.kind === "comment")).toBe(false);
  });

  it("does not treat digits inside names as numbers", () => {
    expect(highlightCode("value2 = x1", "py").some((token) => token.kind === "number")).toBe(false);
  });
});
