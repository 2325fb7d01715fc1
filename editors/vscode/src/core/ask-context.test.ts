import { describe, expect, it } from "vitest";
import { describeContext, questionWithContext } from "./ask-context.ts";

const selected = {
  path: "src/sum.js",
  languageId: "javascript",
  selection: { startLine: 3, endLine: 5, text: "function add(a, b) {\n  return a + b;\n}" },
};

describe("ask context", () => {
  it("describes the active file and selection for the panel", () => {
    expect(describeContext(undefined)).toBe("");
    expect(describeContext({ path: "a.ts", languageId: "typescript" })).toBe("a.ts");
    expect(describeContext(selected)).toBe("src/sum.js, lines 3–5 selected");
  });

  it("sends the selection fenced after the question", () => {
    expect(questionWithContext("Why?", selected)).toBe(
      "Why?\n\n(Active file: src/sum.js, lines 3-5 selected:)\n```javascript\nfunction add(a, b) {\n  return a + b;\n}\n```",
    );
    expect(questionWithContext("Why?", undefined)).toBe("Why?");
    expect(questionWithContext("Why?", { path: "a.ts", languageId: "typescript" })).toBe(
      "Why?\n\n(Active file: a.ts)",
    );
  });

  it("fences code that holds backticks with a longer fence", () => {
    const text = questionWithContext("?", {
      path: "README.md",
      languageId: "markdown",
      selection: { startLine: 1, endLine: 1, text: "```sh\nls\n```" },
    });
    expect(text.endsWith("\n````")).toBe(true);
  });
});
