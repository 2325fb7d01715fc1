import { describe, expect, it } from "vitest";
import { closesFence, readFence, readMarkdownLine, splitTableCells } from "./markdown-lines.ts";

describe("readMarkdownLine", () => {
  it("reads headings, list items, quotes, rules and paragraphs", () => {
    expect(readMarkdownLine("## Plan ##")).toEqual({ kind: "heading", level: 2, text: "Plan" });
    expect(readMarkdownLine("  - use `x`")).toEqual({
      kind: "list-item",
      indent: 2,
      ordered: false,
      marker: "-",
      text: "use `x`",
    });
    expect(readMarkdownLine("3. third")).toMatchObject({
      ordered: true,
      marker: "3.",
      text: "third",
    });
    expect(readMarkdownLine("> quoted")).toEqual({ kind: "quote", text: "quoted" });
    expect(readMarkdownLine("---")).toEqual({ kind: "rule" });
    expect(readMarkdownLine("   ")).toEqual({ kind: "blank" });
    expect(readMarkdownLine("#hashtag and -dash")).toEqual({
      kind: "paragraph",
      text: "#hashtag and -dash",
    });
  });

  it("reads table rows and the divider under a header, with its alignments", () => {
    expect(readMarkdownLine("| a | b\\|c |")).toEqual({ kind: "table-row", cells: ["a", "b|c"] });
    expect(readMarkdownLine("|:--|:-:|--:|---|")).toEqual({
      kind: "table-divider",
      alignments: ["left", "center", "right", "none"],
    });
    expect(readMarkdownLine("a | b")).toEqual({ kind: "paragraph", text: "a | b" });
    expect(splitTableCells("| a | | c")).toEqual(["a", "", "c"]);
  });
});

describe("readFence / closesFence", () => {
  it("opens with a language and closes only with the same kind of fence", () => {
    expect(readFence("```ts")).toEqual({ marker: "```", language: "ts" });
    expect(readFence("~~~~")).toEqual({ marker: "~~~~", language: "" });
    expect(readFence("``not")).toBeUndefined();
    expect(readFence("~~strike~~")).toBeUndefined();
    expect(closesFence("```", "```")).toBe(true);
    expect(closesFence("~~~", "```")).toBe(false);
    expect(closesFence("```", "````")).toBe(false);
    expect(closesFence("```js", "```")).toBe(false);
  });
});
