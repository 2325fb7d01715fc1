import { describe, expect, it } from "vitest";
import { insertText } from "./insert-text.ts";

describe("insertText", () => {
  it("ends a block inserted at a line's start with a newline", () => {
    expect(insertText("const a = 1;\nconst b = 2;", true)).toBe("const a = 1;\nconst b = 2;\n");
  });

  it("leaves a block that has its newline, and an insertion mid-line, as they are", () => {
    expect(insertText("a();\n", true)).toBe("a();\n");
    expect(insertText("value", false)).toBe("value");
  });
});
