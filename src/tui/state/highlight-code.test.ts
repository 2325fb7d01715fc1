import { describe, expect, it } from "vitest";
import { highlightCodeLine } from "./highlight-code.ts";

const kinds = (line: string, language: string): string[] =>
  highlightCodeLine(line, language).map((token) => `${token.kind}:${token.text}`);

describe("highlightCodeLine", () => {
  it("colours keywords, strings, numbers and comments, the rest plain", () => {
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

  it("knows which languages comment with # or --, and keeps every character", () => {
    expect(kinds("x = a // 2  # floor", "python")).toEqual([
      "plain:x = a // ",
      "number:2",
      "plain:  ",
      "comment:# floor",
    ]);
    expect(kinds("select 1 -- one", "sql").at(-1)).toBe("comment:-- one");
    expect(kinds("i--; // down", "c").at(-1)).toBe("comment:// down");
    const line = 'echo "it\'s $HOME" # say';
    expect(
      highlightCodeLine(line, "bash")
        .map((token) => token.text)
        .join(""),
    ).toBe(line);
  });
});
