import { describe, expect, it } from "vitest";
import { inlineText, parseInline, safeHref } from "./markdown-inline.ts";

const text = (value: string) => ({ type: "text", text: value });

describe("parseInline", () => {
  it("parses inline code, emphasis and strong, leaving snake_case alone", () => {
    expect(parseInline("use `a<b>` with *care* and __bold__ in my_var_name")).toEqual([
      text("use "),
      { type: "code", text: "a<b>" },
      text(" with "),
      { type: "emphasis", children: [text("care")] },
      text(" and "),
      { type: "strong", children: [text("bold")] },
      text(" in my_var_name"),
    ]);
    expect(parseInline("``a `tick` b``")).toEqual([{ type: "code", text: "a `tick` b" }]);
  });

  it("nests marks inside marks", () => {
    expect(parseInline("*a **b** c*")).toEqual([
      {
        type: "emphasis",
        children: [text("a "), { type: "strong", children: [text("b")] }, text(" c")],
      },
    ]);
  });

  it("strikes ~~text~~ through, leaving a lone ~ or an unclosed ~~ as typed", () => {
    expect(parseInline("use ~~old~~ new")).toEqual([
      text("use "),
      { type: "strike", children: [text("old")] },
      text(" new"),
    ]);
    expect(parseInline("~/src and ~~ open")).toEqual([text("~/src and ~~ open")]);
  });

  it("leaves unclosed marks and arithmetic literal", () => {
    expect(parseInline("a `partial")).toEqual([text("a `partial")]);
    expect(parseInline("snake_case_name and 2 * 3 * 4")).toEqual([
      text("snake_case_name and 2 * 3 * 4"),
    ]);
    expect(parseInline("**open")).toEqual([text("**open")]);
  });

  it("makes links of web links only; others keep their target as text", () => {
    expect(parseInline("[docs](https://example.com/a)")).toEqual([
      { type: "link", href: "https://example.com/a", children: [text("docs")] },
    ]);
    expect(parseInline("[click](javascript:alert(1))")[0]).toEqual(text("click"));
    expect(inlineText(parseInline("[click](javascript:alert(1))"))).toBe(
      "click (javascript:alert(1))",
    );
    expect(safeHref("javascript:alert(1)")).toBeUndefined();
    expect(safeHref("data:text/html,<b>")).toBeUndefined();
  });

  it("keeps HTML the text it is", () => {
    const html = 'Look: <img src=x onerror="alert(1)"> and <script>alert(2)</script>';
    expect(parseInline(html)).toEqual([text(html)]);
  });
});
