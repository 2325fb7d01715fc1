import { describe, expect, it } from "vitest";
import { filterCompletion } from "./stream-filters.ts";

const singleLine = { prefix: "const a = ", suffix: ";\n", multiline: false };
const block = { prefix: "function f() {\n  ", suffix: "\n}\nconst after = 1;\n", multiline: true };

describe("filterCompletion", () => {
  it("stops a single-line completion at its first newline", () => {
    expect(filterCompletion("compute(1)", singleLine)).toEqual({
      text: "compute(1)",
      stopped: false,
    });
    expect(filterCompletion("compute(1)\nmore", singleLine)).toEqual({
      text: "compute(1)",
      stopped: true,
    });
  });

  it("stops a block at a line that repeats one just written", () => {
    const text = "const x = load();\n  use(x);\n  const x = load();\n";
    expect(filterCompletion(text, block)).toEqual({
      text: "const x = load();\n  use(x);",
      stopped: true,
    });
  });

  it("stops a block where it reaches the suffix's first line", () => {
    const text = "return 1;\n}\nconst after = 1;\n";
    expect(filterCompletion(text, block).text).toBe("return 1;");
    expect(filterCompletion(text, block).stopped).toBe(true);
  });

  it("stops at a bracket closing a block the completion did not open", () => {
    const text = "if (a) {\n    b();\n  }\n}\nnext";
    expect(filterCompletion(text, { ...block, suffix: "" })).toEqual({
      text: "if (a) {\n    b();\n  }",
      stopped: true,
    });
  });

  it("lets a block grow while its last line is incomplete", () => {
    expect(filterCompletion("return comp", block)).toEqual({ text: "return comp", stopped: false });
  });
});
