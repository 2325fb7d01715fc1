import { describe, expect, it } from "vitest";
import {
  buildCompletionRequest,
  completionAllowedAt,
  isAtEmptyBlock,
} from "./completion-request.ts";

function at(textWithCursor: string) {
  const offset = textWithCursor.indexOf("|");
  return {
    text: textWithCursor.replace("|", ""),
    offset,
    documentId: "file:///a.ts",
    languageId: "typescript",
  };
}

describe("buildCompletionRequest", () => {
  it("splits the document at the cursor and keeps the document id", () => {
    const request = buildCompletionRequest(at("const a = |;\nconst b = 2;\n"));
    expect(request.prefix).toBe("const a = ");
    expect(request.suffix).toBe(";\nconst b = 2;\n");
    expect(request.documentId).toBe("file:///a.ts");
    expect(request.multiline).toBe(false);
  });

  it("cuts long windows at line boundaries so the prefix start stays put while typing", () => {
    const lines = Array.from({ length: 100 }, (_, index) => `line ${index}`).join("\n");
    const first = buildCompletionRequest(at(`${lines}\nab|`), { maxPrefixChars: 100 });
    const second = buildCompletionRequest(at(`${lines}\nabc|`), { maxPrefixChars: 100 });
    expect(first.prefix.length).toBeLessThanOrEqual(100);
    expect(first.prefix.startsWith("line ")).toBe(true);
    expect(second.prefix.startsWith(first.prefix.slice(0, 20))).toBe(true);
    const suffixed = buildCompletionRequest(at(`|${lines}`), { maxSuffixChars: 50 });
    expect(suffixed.suffix.length).toBeLessThanOrEqual(50);
    expect(suffixed.suffix.endsWith("\n")).toBe(true);
  });

  it("asks for a block when the cursor sits in an empty body", () => {
    const request = buildCompletionRequest(at("function add(a, b) {\n  |\n}\n"));
    expect(request.multiline).toBe(true);
    expect(request.maxTokens).toBeGreaterThan(64);
  });
});

describe("isAtEmptyBlock", () => {
  it("is true after an opener with nothing inside yet", () => {
    expect(isAtEmptyBlock("if x:\n    ", "\nprint(1)\n")).toBe(true);
    expect(isAtEmptyBlock("const f = () => {", "}\n")).toBe(true);
  });

  it("is false inside a line, in a block that has a body, or after a plain line", () => {
    expect(isAtEmptyBlock("function f() {\n  return ", "1;\n}")).toBe(false);
    expect(isAtEmptyBlock("function f() {\n  ", "\n  return 1;\n}")).toBe(false);
    expect(isAtEmptyBlock("const a = 1;\n", "\n")).toBe(false);
  });
});

describe("completionAllowedAt", () => {
  it("allows the end of a line and a cursor before closing brackets, quotes or spaces", () => {
    expect(completionAllowedAt(at("const a = |\nnext"))).toBe(true);
    expect(completionAllowedAt(at("call(|)"))).toBe(true);
    expect(completionAllowedAt(at('log("|");'))).toBe(false);
    expect(completionAllowedAt(at('log("|")'))).toBe(true);
    expect(completionAllowedAt(at("items[|]  \n"))).toBe(true);
  });

  it("refuses the middle of a line with code after the cursor", () => {
    expect(completionAllowedAt(at("const sum = add(|x);"))).toBe(false);
    expect(completionAllowedAt(at("ret|urn a;"))).toBe(false);
  });
});
