import { describe, expect, it } from "vitest";
import { parseMarkdown, splitBlocks, splitBlocksFrom } from "./markdown.ts";

const text = (value: string) => ({ type: "text", text: value });

describe("parseMarkdown", () => {
  it("keeps HTML in a reply as plain text", () => {
    const html = 'Look: <img src=x onerror="alert(1)"> and <script>alert(2)</script>';
    expect(parseMarkdown(html)).toEqual([{ type: "paragraph", children: [text(html)] }]);
  });

  it("reads headings, lists, quotes, rules and fenced code with its language", () => {
    const blocks = parseMarkdown(
      "# Title\n\n- one\n- **two**\n\n1. first\n2. second\n\n> quoted\n\n---\n\n```ts\nconst a = 1;\n\nlet b = 2;\n```",
    );
    expect(blocks.map((block) => block.type)).toEqual([
      "heading",
      "list",
      "list",
      "quote",
      "rule",
      "code-block",
    ]);
    expect(blocks[5]).toEqual({
      type: "code-block",
      language: "ts",
      code: "const a = 1;\n\nlet b = 2;",
      closed: true,
    });
  });

  it("nests indented list items under the item above, and numbers from the first item", () => {
    expect(parseMarkdown("- a\n  - a1\n    1. deep\n  - a2\n- b\n\n3. three\n4. four")).toEqual([
      {
        type: "list",
        ordered: false,
        items: [
          {
            children: [text("a")],
            sublist: {
              type: "list",
              ordered: false,
              items: [
                {
                  children: [text("a1")],
                  sublist: { type: "list", ordered: true, items: [{ children: [text("deep")] }] },
                },
                { children: [text("a2")] },
              ],
            },
          },
          { children: [text("b")] },
        ],
      },
      {
        type: "list",
        ordered: true,
        start: 3,
        items: [{ children: [text("three")] }, { children: [text("four")] }],
      },
    ]);
  });

  it("reads a table under a paragraph, with alignments and cells as inline text", () => {
    expect(
      parseMarkdown("Sizes:\n| name | ~~old~~ | size |\n|---|:-:|--:|\n| `a` | x | 1 |\n| b |"),
    ).toEqual([
      { type: "paragraph", children: [text("Sizes:")] },
      {
        type: "table",
        alignments: ["none", "center", "right"],
        header: [[text("name")], [{ type: "strike", children: [text("old")] }], [text("size")]],
        rows: [
          [[{ type: "code", text: "a" }], [text("x")], [text("1")]],
          [[text("b")], [], []],
        ],
      },
    ]);
  });

  it("leaves a pipe line without a divider under it as a paragraph", () => {
    expect(parseMarkdown("| not a table")).toEqual([
      { type: "paragraph", children: [text("| not a table")] },
    ]);
  });

  it("starts a paragraph after a blank line without the space a model put before it (issue 37)", () => {
    expect(parseMarkdown("One.\n\n Two,\n  continued.")).toEqual([
      { type: "paragraph", children: [text("One.")] },
      { type: "paragraph", children: [text("Two,\ncontinued.")] },
    ]);
  });

  it("keeps an unclosed fence open, with what it has so far", () => {
    expect(parseMarkdown("```py\nx = 1")[0]).toMatchObject({
      type: "code-block",
      language: "py",
      closed: false,
      code: "x = 1",
    });
  });
});

describe("splitBlocks", () => {
  it("splits a growing reply so earlier blocks keep the same source", () => {
    const first = splitBlocks("Intro.\n\n```js\nlet a = 1;\n\nlet b");
    const later = splitBlocks("Intro.\n\n```js\nlet a = 1;\n\nlet b = 2;\n```\n\nAfter.");
    expect(first).toEqual(["Intro.", "```js\nlet a = 1;\n\nlet b"]);
    expect(later).toEqual(["Intro.", "```js\nlet a = 1;\n\nlet b = 2;\n```", "After."]);
  });

  it("splits incrementally to the same blocks, reusing the finished ones", () => {
    const full = "One.\n\n```ts\nconst a = 1;\n\nlet b;\n```\n\n- item\n- more\n\nEnd of it.";
    let split = splitBlocksFrom(undefined, "");
    for (let length = 1; length <= full.length; length += 1) {
      const next = splitBlocksFrom(split, full.slice(0, length));
      expect(next.blocks).toEqual(splitBlocks(full.slice(0, length)));
      if (split.blocks.length > 1) expect(next.blocks[0]).toBe(split.blocks[0]);
      split = next;
    }
    expect(split.blocks).toEqual([
      "One.",
      "```ts\nconst a = 1;\n\nlet b;\n```",
      "- item\n- more",
      "End of it.",
    ]);
    // Text that does not extend the previous one is split from scratch.
    expect(splitBlocksFrom(split, "Other.").blocks).toEqual(["Other."]);
  });
});
