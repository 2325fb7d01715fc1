import { describe, expect, it } from "vitest";
import { highlightCode } from "./highlight.ts";

const kinds = (code: string, language: string): string[] =>
  highlightCode(code, language).map((token) => `${token.kind}:${token.text}`);

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

  it("joins neighbouring plain text into one span", () => {
    expect(kinds('const x = "hi"; // note', "ts")).toEqual([
      "keyword:const",
      "plain: x = ",
      'string:"hi"',
      "plain:; ",
      "comment:// note",
    ]);
    expect(kinds("return 0x1F + 3.5 /* done */", "js")).toEqual([
      "keyword:return",
      "plain: ",
      "number:0x1F",
      "plain: + ",
      "number:3.5",
      "plain: ",
      "comment:/* done */",
    ]);
  });

  it("knows which languages comment with # or --", () => {
    expect(kinds("x = a // 2  # floor", "python")).toEqual([
      "plain:x = a // ",
      "number:2",
      "plain:  ",
      "comment:# floor",
    ]);
    expect(kinds("# hi", "bash")).toEqual(["comment:# hi"]);
    expect(kinds("#include", "c")).not.toContain("comment:#include");
    expect(kinds("select 1 -- one", "sql").at(-1)).toBe("comment:-- one");
    expect(kinds("i--; // down", "c").at(-1)).toBe("comment:// down");
  });

  it("uses the shell's own keywords for shell code", () => {
    expect(
      kinds("for f in *; do echo $f; done", "bash").filter((kind) => kind.startsWith("keyword")),
    ).toEqual(["keyword:for", "keyword:in", "keyword:do", "keyword:echo", "keyword:done"]);
    expect(kinds("class", "bash")).toEqual(["plain:class"]);
  });

  it("does not treat digits inside names as numbers, and keeps every character", () => {
    expect(kinds("value2 = x1", "py").some((kind) => kind.startsWith("number"))).toBe(false);
    const line = 'echo "it\'s $HOME" # say';
    expect(
      highlightCode(line, "bash")
        .map((token) => token.text)
        .join(""),
    ).toBe(line);
  });

  it("ends an unclosed quote at its line, a template string or block comment spans lines", () => {
    expect(kinds('x = "open\ny', "js")).toEqual(["plain:x = ", 'string:"open', "plain:\ny"]);
    expect(kinds("/* a\nb */ c", "js")).toEqual(["comment:/* a\nb */", "plain: c"]);
    expect(kinds("`a\nb`", "ts")).toEqual(["string:`a\nb`"]);
  });
});
