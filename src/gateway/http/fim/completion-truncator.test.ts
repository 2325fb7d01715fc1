import { describe, expect, it } from "vitest";
import {
  CompletionTruncator,
  firstSuffixLine,
  isRepeatOf,
  openBracketsAtCursor,
  type TruncationReason,
} from "./completion-truncator.ts";

/** Streams `pieces` through a truncator; returns what a client would see and why it stopped. */
function run(
  prefix: string,
  suffix: string,
  pieces: string[],
  options: { maxPredictMs?: number; elapsedMs?: number[] } = {},
): { text: string; stopped: TruncationReason | undefined } {
  const truncator = new CompletionTruncator({
    prefix,
    suffix,
    ...(options.maxPredictMs === undefined ? {} : { maxPredictMs: options.maxPredictMs }),
  });
  let text = "";
  for (const [index, piece] of pieces.entries()) {
    const step = truncator.push(piece, options.elapsedMs?.[index] ?? 0);
    text += step.text;
    if (step.stopped !== undefined) return { text, stopped: step.stopped };
  }
  return { text: text + truncator.flush(), stopped: undefined };
}

/** The completion's own brackets left open (the cursor line's open ones may be closed by it). */
function balance(text: string, prefix: string): number {
  let open = 0;
  let cursorOpen = openBracketsAtCursor(prefix, "").length;
  for (const character of text) {
    if ("([{".includes(character)) open += 1;
    else if (")]}".includes(character)) {
      if (open > 0) open -= 1;
      else cursorOpen -= 1;
    }
  }
  expect(cursorOpen).toBeGreaterThanOrEqual(0);
  return open;
}

describe("completion truncation rules", () => {
  it.each([
    {
      rule: "stops before the suffix's first line",
      prefix: "function add(a, b) {\n  ",
      suffix: "\n  return sum;\n}\n",
      pieces: ["const sum = a + b;\n", "  return sum;\n", "}\n"],
      text: "const sum = a + b;\n",
      stopped: "suffix_line",
    },
    {
      rule: "stops at a repeated line",
      prefix: "",
      suffix: "",
      pieces: ["log(1);\n", "count += 1;\n", "count += 1;\n", "more();\n"],
      text: "log(1);\ncount += 1;\n",
      stopped: "repeated_line",
    },
    {
      rule: "lets a lone closing bracket repeat",
      prefix: "",
      suffix: "",
      pieces: ["if (a) {\n", "  if (b) {\n", "    go();\n", "  }\n", "}\n"],
      text: "if (a) {\n  if (b) {\n    go();\n  }\n}\n",
      stopped: undefined,
    },
    {
      rule: "stops before a closing bracket the code around it owns",
      prefix: "function f() {\n  ",
      suffix: "\n}\n",
      pieces: ["return 1;\n", "}\n"],
      text: "return 1;\n",
      stopped: "unbalanced_bracket",
    },
    {
      rule: "closes brackets it opened itself",
      prefix: "",
      suffix: "",
      pieces: ["call(a, [1, 2], { b: 3 });"],
      text: "call(a, [1, 2], { b: 3 });",
      stopped: undefined,
    },
    {
      rule: "closes a bracket opened on the cursor's line",
      prefix: "const total = sum(",
      suffix: "\n",
      pieces: ["a, b);"],
      text: "a, b);",
      stopped: undefined,
    },
    {
      rule: "does not close a bracket the suffix already closes",
      prefix: "const total = sum(",
      suffix: ");\n",
      pieces: ["a, b);"],
      text: "a, b",
      stopped: "unbalanced_bracket",
    },
    {
      rule: "stops at a mismatched closer",
      prefix: "",
      suffix: "",
      pieces: ["f(a]"],
      text: "f(a",
      stopped: "unbalanced_bracket",
    },
  ])("$rule", ({ prefix, suffix, pieces, text, stopped }) => {
    expect(run(prefix, suffix, pieces)).toEqual({ text, stopped });
  });

  // Greedy FIM answers of spark-code-tiny (shared/models, through the llama-cpp engine, 80 tokens)
  // to the editor's cursor inside a block whose `}` the suffix holds: each opens a block of its own
  // whose closing line looks exactly like the suffix's first line.
  it.each([
    {
      shape: "if (typeof …) { … } inside if (count === 0) { (issue 38's case)",
      prefix: "function toText(value, count) {\n  if (count === 0) {\n    if (typeof value === ",
      suffix: "\n  }\n  return String(value);\n}\n",
      raw: "'string') {\n      value = value.slice(1);\n    }\n  }\n\n  return value.slice(2);\n};\n\n",
      text: "'string') {\n      value = value.slice(1);\n    }\n",
      // The suffix's `}` closes a block the completion did not open.
      stopped: "unbalanced_bracket",
    },
    {
      shape: "if (…) { … } inside a for-in loop",
      prefix:
        "function keys(object) {\n  const result = [];\n  for (const key in object) {\n    if (",
      suffix: "\n  }\n  return result;\n}\n",
      raw: 'key === "__proto__") {\n      result[key] = key;\n    }\n  }\n  return result;\n}\n\n/**\n ',
      text: 'key === "__proto__") {\n      result[key] = key;\n    }\n',
      stopped: "unbalanced_bracket",
    },
    {
      shape: "a nested block after a statement, cut by the token limit",
      prefix: "function parse(value) {\n  if (value) {\n    const parts = value.split(",
      suffix: "\n  }\n}\n",
      raw: '"-");\n    if (parts.length === 1) {\n      return value.slice(1);\n    }\n    return ',
      text: '"-");\n    if (parts.length === 1) {\n      return value.slice(1);\n    }\n    return ',
      stopped: undefined,
    },
    {
      shape: "if (…) { … } then a repeat of its own condition",
      prefix: "function toText(value, count) {\n  if (count === 0) {\n    if (",
      suffix: "\n  }\n  return String(value);\n}\n",
      raw: "value === '__proto__') {\n      return value;\n    }\n    if (value === '__proto__')",
      text: "value === '__proto__') {\n      return value;\n    }\n    if (value === '__proto__')",
      stopped: undefined,
    },
  ])(
    "keeps the closing line of a block it opened: $shape",
    ({ prefix, suffix, raw, text, stopped }) => {
      // Streamed in pieces the size the server sends (a few characters), so lines arrive split.
      const pieces = raw.match(/[\s\S]{1,3}/g) ?? [];
      const result = run(prefix, suffix, pieces);
      expect(result).toEqual({ text, stopped });
      expect(balance(text, prefix)).toBe(0);
    },
  );

  it("past the time budget, waits for the line that closes a block the completion opened", () => {
    const pieces = ["if (a) {\n", "  go();\n", "}\n", "more();\n"];
    expect(
      run("", "\nnext();\n", pieces, { maxPredictMs: 10, elapsedMs: [20, 30, 40, 50] }),
    ).toEqual({ text: "if (a) {\n  go();\n}\n", stopped: "time_budget" });
  });

  it("ends at the last line end once the time budget is spent", () => {
    const pieces = ["first", " line\n", "second", " line\n"];
    expect(run("", "", pieces, { maxPredictMs: 100, elapsedMs: [0, 50, 150, 200] })).toEqual({
      text: "first line\n",
      stopped: "time_budget",
    });
  });

  it("applies only the time budget without line rules (a plain completion)", () => {
    const truncator = new CompletionTruncator({ prefix: "", suffix: "", lineRules: false });
    expect(truncator.push("a();\na();\n}").text).toBe("a();\na();\n}");
    expect(truncator.stopReason).toBeUndefined();
    const timed = new CompletionTruncator({
      prefix: "",
      suffix: "",
      lineRules: false,
      maxPredictMs: 5,
    });
    expect(timed.push("one\ntw", 10)).toEqual({ text: "one\n", stopped: "time_budget" });
  });

  it("keeps going past the time budget until a line has ended", () => {
    const pieces = ["one", " long", " line"];
    expect(run("", "", pieces, { maxPredictMs: 10, elapsedMs: [20, 30, 40] })).toEqual({
      text: "one long line",
      stopped: undefined,
    });
  });

  it("holds back a line while it may become the suffix's line, then releases it", () => {
    const truncator = new CompletionTruncator({ prefix: "", suffix: "\nreturn x;\n" });
    expect(truncator.push("a = 1;\n").text).toBe("a = 1;\n");
    expect(truncator.push("ret").text).toBe("");
    expect(truncator.push("ry();").text).toBe("retry();");
  });

  it.each([
    ["\n\n  return x;\n}", "return x;"],
    ["", undefined],
    ["  \n", undefined],
  ])("firstSuffixLine(%j) is %j", (suffix, line) => {
    expect(firstSuffixLine(suffix)).toBe(line);
  });

  it.each([
    ["const a = f(g(", "", ["(", "("]],
    ["const a = f(g(", "));", []],
    ["if (a) {\n  x(", ")\n}", []],
    ["x = [1, {", "", ["[", "{"]],
  ])("openBracketsAtCursor(%j, %j) is %j", (prefix, suffix, open) => {
    expect(openBracketsAtCursor(prefix, suffix)).toEqual(open);
  });

  it.each([
    ["x += 1;", "  x += 1;", true],
    ["}", "}", false],
    ["});", "});", false],
    ["a();", "b();", false],
    ["a();", undefined, false],
  ])("isRepeatOf(%j, %j) is %s", (line, previous, repeated) => {
    expect(isRepeatOf(line, previous)).toBe(repeated);
  });
});
