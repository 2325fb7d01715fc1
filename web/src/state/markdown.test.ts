import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown, safeHref, splitBlocks, splitBlocksFrom } from "./markdown.ts";

describe("markdown", () => {
  it("keeps HTML in a reply as plain text", () => {
    const blocks = parseMarkdown(
      'Look: <img src=x onerror="alert(1)"> and <script>alert(2)</script>',
    );
    expect(blocks).toEqual([
      {
        type: "paragraph",
        children: [
          {
            type: "text",
            text: 'Look: <img src=x onerror="alert(1)"> and <script>alert(2)</script>',
          },
        ],
      },
    ]);
  });

  it("reads headings, lists, quotes, rules and fenced code", () => {
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

  it("parses inline code, emphasis and links, leaving snake_case alone", () => {
    expect(parseInline("use `a<b>` with *care* and __bold__ in my_var_name")).toEqual([
      { type: "text", text: "use " },
      { type: "code", text: "a<b>" },
      { type: "text", text: " with " },
      { type: "emphasis", children: [{ type: "text", text: "care" }] },
      { type: "text", text: " and " },
      { type: "strong", children: [{ type: "text", text: "bold" }] },
      { type: "text", text: " in my_var_name" },
    ]);
  });

  it("starts a paragraph after a blank line without the space a model put before it (issue 37)", () => {
    expect(parseMarkdown("One.\n\n Two,\n  continued.")).toEqual([
      { type: "paragraph", children: [{ type: "text", text: "One." }] },
      { type: "paragraph", children: [{ type: "text", text: "Two,\ncontinued." }] },
    ]);
  });

  it("makes anchors of web links only", () => {
    expect(parseInline("[docs](https://example.com/a)")).toEqual([
      { type: "link", href: "https://example.com/a", children: [{ type: "text", text: "docs" }] },
    ]);
    expect(parseInline("[click](javascript:alert(1))")[0]).toEqual({ type: "text", text: "click" });
    expect(safeHref("javascript:alert(1)")).toBeUndefined();
    expect(safeHref("data:text/html,<b>")).toBeUndefined();
  });

  it("splits a growing reply so earlier blocks keep the same source", () => {
    const first = splitBlocks("Intro.\n\n```js\nlet a = 1;\n\nlet b");
    const later = splitBlocks("Intro.\n\n```js\nlet a = 1;\n\nlet b = 2;\n```\n\nAfter.");
    expect(first).toEqual(["Intro.", "```js\nlet a = 1;\n\nlet b"]);
    expect(later).toEqual(["Intro.", "```js\nlet a = 1;\n\nlet b = 2;\n```", "After."]);
    expect(parseMarkdown("```py\nx = 1")[0]).toMatchObject({
      type: "code-block",
      closed: false,
      code: "x = 1",
    });
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
