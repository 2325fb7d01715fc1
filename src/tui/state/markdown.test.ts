import { describe, expect, it } from "vitest";
import { classifyMarkdownLine, closesFence, parseInline, readFence } from "./markdown.ts";

describe("classifyMarkdownLine", () => {
  it("reads headings, list items, quotes, rules and paragraphs", () => {
    expect(classifyMarkdownLine("## Plan ##")).toEqual({ kind: "heading", level: 2, text: "Plan" });
    expect(classifyMarkdownLine("  - use `x`")).toEqual({
      kind: "list-item",
      indent: "  ",
      marker: "•",
      text: "use `x`",
    });
    expect(classifyMarkdownLine("3. third")).toMatchObject({ marker: "3.", text: "third" });
    expect(classifyMarkdownLine("> quoted")).toEqual({ kind: "quote", text: "quoted" });
    expect(classifyMarkdownLine("---")).toEqual({ kind: "rule" });
    expect(classifyMarkdownLine("#hashtag and -dash")).toEqual({
      kind: "paragraph",
      text: "#hashtag and -dash",
    });
  });
});

describe("readFence / closesFence", () => {
  it("opens with a language and closes only with the same kind of fence", () => {
    expect(readFence("```ts")).toEqual({ marker: "```", language: "ts" });
    expect(readFence("~~~~")).toEqual({ marker: "~~~~", language: "" });
    expect(readFence("``not")).toBeUndefined();
    expect(closesFence("```", "```")).toBe(true);
    expect(closesFence("~~~", "```")).toBe(false);
    expect(closesFence("```", "````")).toBe(false);
    expect(closesFence("```js", "```")).toBe(false);
  });
});

describe("parseInline", () => {
  it("takes the marks off code, bold, italic and links", () => {
    expect(parseInline("run `npm test` **now**, *then* see [docs](https://x.dev)")).toEqual([
      { text: "run ", style: "plain" },
      { text: "npm test", style: "code" },
      { text: " ", style: "plain" },
      { text: "now", style: "bold" },
      { text: ", ", style: "plain" },
      { text: "then", style: "italic" },
      { text: " see ", style: "plain" },
      { text: "docs (https://x.dev)", style: "link" },
    ]);
    expect(parseInline("``a `tick` b``")).toEqual([{ text: "a `tick` b", style: "code" }]);
  });

  it("strikes ~~text~~ through, leaving a lone ~ or an unclosed ~~ as typed (issue 37)", () => {
    expect(parseInline("use ~~old~~ new")).toEqual([
      { text: "use ", style: "plain" },
      { text: "old", style: "strike" },
      { text: " new", style: "plain" },
    ]);
    expect(parseInline("~/src and ~~ open")).toEqual([
      { text: "~/src and ~~ open", style: "plain" },
    ]);
  });

  it("leaves unclosed marks, snake_case and arithmetic literal", () => {
    expect(parseInline("a `partial")).toEqual([{ text: "a `partial", style: "plain" }]);
    expect(parseInline("snake_case_name and 2 * 3 * 4")).toEqual([
      { text: "snake_case_name and 2 * 3 * 4", style: "plain" },
    ]);
  });
});
