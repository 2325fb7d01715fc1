import { describe, expect, it } from "vitest";
import { describeAttached, describeContext, questionWithContext } from "./ask-context.ts";

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

  it("sends attached selections after the active context, each once, and lists them", () => {
    const other = {
      path: "src/other.ts",
      languageId: "typescript",
      selection: { startLine: 9, endLine: 9, text: "const limit = 3;" },
    };
    expect(questionWithContext("Why?", { path: "a.ts", languageId: "typescript" }, [other])).toBe(
      "Why?\n\n(Active file: a.ts)\n\n(Attached: src/other.ts, line 9:)\n```typescript\nconst limit = 3;\n```",
    );
    // The active selection attached too is not sent twice.
    expect(questionWithContext("Why?", selected, [selected])).toBe(
      questionWithContext("Why?", selected),
    );
    expect(describeAttached([selected, other])).toBe("src/sum.js lines 3–5, src/other.ts line 9");
  });
});
