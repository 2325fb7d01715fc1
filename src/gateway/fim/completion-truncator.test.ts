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

  it("ends at the last line end once the time budget is spent", () => {
    const pieces = ["first", " line\n", "second", " line\n"];
    expect(run("", "", pieces, { maxPredictMs: 100, elapsedMs: [0, 50, 150, 200] })).toEqual({
      text: "first line\n",
      stopped: "time_budget",
    });
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
