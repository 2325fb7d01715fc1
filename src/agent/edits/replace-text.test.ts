import { describe, expect, it } from "vitest";
import { EditError } from "./edit-error.ts";
import { replaceText } from "./replace-text.ts";

function replace(content: string, oldText: string, newText: string, replaceAll = false) {
  return replaceText({ content, oldText, newText, replaceAll, relativePath: "src/a.ts" });
}

function editErrorOf(run: () => unknown): EditError {
  try {
    run();
  } catch (error) {
    if (error instanceof EditError) return error;
    throw error;
  }
  throw new Error("expected an EditError");
}

describe("replaceText ladder", () => {
  it("rung exact: replaces a substring in the middle of a line", () => {
    const result = replace("const a = 1;\nconst b = 2;\n", "b = 2", "b = 3");
    expect(result).toEqual({ text: "const a = 1;\nconst b = 3;\n", rung: "exact", lines: [2] });
  });

  it("rung trailing-whitespace: the file has trailing blanks the model left out", () => {
    const content = "function f() {   \n  return 1;\t\n}\n";
    const result = replace(
      content,
      "function f() {\n  return 1;\n}",
      "function f() {\n  return 2;\n}",
    );
    expect(result.rung).toBe("trailing-whitespace");
    expect(result.text).toBe("function f() {\n  return 2;\n}\n");
  });

  it("rung whitespace: collapses runs of spaces inside a line", () => {
    const result = replace("let  total   =  0;\nnext();\n", "let total = 0;", "let total = 1;");
    expect(result.rung).toBe("whitespace");
    expect(result.text).toBe("let total = 1;\nnext();\n");
  });

  it("rung whitespace: re-indents the replacement to the file's indentation", () => {
    const content = "class A {\n    run() {\n        go();\n    }\n}\n";
    const result = replace(content, "run() {\n    go();\n}", "run() {\n    go();\n    stop();\n}");
    expect(result.rung).toBe("whitespace");
    expect(result.text).toBe("class A {\n    run() {\n        go();\n        stop();\n    }\n}\n");
  });

  it("rung whitespace: a single line written without indentation keeps the file's indentation", () => {
    const content = "if (x) {\n\t\treturn  a;\n}\n";
    const result = replace(content, "return a;", "return b;");
    expect(result.text).toBe("if (x) {\n\t\treturn b;\n}\n");
  });

  it("rung unicode: matches curly quotes, dashes and NBSP written as ASCII", () => {
    const content = "const label = \u201CHello \u2014 world\u201D;\u00A0// it\u2019s\n";
    const result = replace(
      content,
      'const label = "Hello - world"; // it\'s',
      'const label = "Hi";',
    );
    expect(result.rung).toBe("unicode");
    expect(result.text).toBe('const label = "Hi";\n');
  });

  it("prefers the strictest rung even when a looser one would match elsewhere", () => {
    const content = "  a  b\na b\n";
    const result = replace(content, "a b", "X");
    expect(result.rung).toBe("exact");
    expect(result.text).toBe("  a  b\nX\n");
  });
});

describe("replaceText refusals", () => {
  it("reports an ambiguous match with every line number", () => {
    const content = "x();\n}\ny();\n}\nz();\n}\n";
    const error = editErrorOf(() => replace(content, "}", "};"));
    expect(error.editCode).toBe("ambiguous_match");
    expect(error.message).toBe(
      "oldText matched 3 places in src/a.ts (lines 2, 4, 6); include more surrounding lines so it matches exactly one, or set replaceAll to change every one",
    );
  });

  it("replaces every occurrence with replaceAll", () => {
    const result = replace("a.b\na.b\nc\n", "a.b", "a.c", true);
    expect(result.text).toBe("a.c\na.c\nc\n");
    expect(result.lines).toEqual([1, 2]);
  });

  it("shows the nearest similar region when oldText is missing", () => {
    const content = [
      "import x from 'x';",
      "",
      "export function add(a, b) {",
      "  return a + b;",
      "}",
      "",
      "export function sub(a, b) {",
      "  return a - b;",
      "}",
    ].join("\n");
    const error = editErrorOf(() =>
      replace(content, "export function sub(a, c) {\n  return a - c;\n}", "x"),
    );
    expect(error.editCode).toBe("no_match");
    expect(error.message).toContain(
      "oldText was not found in src/a.ts; the closest lines are 7-9:",
    );
    expect(error.message).toContain("7 | export function sub(a, b) {");
    expect(error.message).toContain("9 | }");
  });

  it("says so when nothing in the file is similar", () => {
    const error = editErrorOf(() => replace("alpha\nbeta\n", "zzz qqq", "x"));
    expect(error.editCode).toBe("no_match");
    expect(error.message).toContain("no similar lines were found");
  });

  it("never treats whitespace-only oldText as a fuzzy match", () => {
    const error = editErrorOf(() => replace("a\nb\n", "   ", "x"));
    expect(error.editCode).toBe("no_match");
  });
});
