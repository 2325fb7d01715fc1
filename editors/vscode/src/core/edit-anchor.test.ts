import { describe, expect, it } from "vitest";
import { EditAnchor, type TextChange } from "./edit-anchor.ts";

const LOOP = "  for (const item of items) total += item;";
/** The report's file: the same loop line in sumA (line 3) and sumB (line 9). */
const documentText =
  `function sumA(items) {\n  let total = 0;\n${LOOP}\n  return total;\n}\n\n` +
  `function sumB(items) {\n  let total = 0;\n${LOOP}\n  return total;\n}\n`;
const start = documentText.indexOf(LOOP);
const end = start + LOOP.length;
const secondCopy = documentText.lastIndexOf(LOOP);

/** Applies `change` to `text` as VS Code does, and to the anchor. */
function change(anchor: EditAnchor, text: string, edit: TextChange): string {
  anchor.apply([edit]);
  return (
    text.slice(0, edit.rangeOffset) + edit.text + text.slice(edit.rangeOffset + edit.rangeLength)
  );
}

describe("EditAnchor", () => {
  it("keeps the offsets when nothing changed", () => {
    expect(new EditAnchor(documentText, start, end).span).toEqual({ start, end });
  });

  it("moves with a line added above the selection", () => {
    const anchor = new EditAnchor(documentText, start, end);
    const now = change(anchor, documentText, { rangeOffset: 0, rangeLength: 0, text: "// top\n" });
    const span = anchor.span;
    expect(span?.start).toBe(start + "// top\n".length);
    expect(now.slice(span?.start, span?.end)).toBe(LOOP);
  });

  it("stays on line 3 when the identical line 9 changes or goes away", () => {
    const anchor = new EditAnchor(documentText, start, end);
    let now = change(anchor, documentText, {
      rangeOffset: secondCopy,
      rangeLength: LOOP.length + 1,
      text: "",
    });
    now = change(anchor, now, { rangeOffset: 0, rangeLength: 0, text: "\n" });
    expect(anchor.span).toEqual({ start: start + 1, end: end + 1 });
    expect(now.slice(start + 1, end + 1)).toBe(LOOP);
  });

  it("refuses once text is appended to the selected line: line 9's copy never receives the edit", () => {
    const anchor = new EditAnchor(documentText, start, end);
    change(anchor, documentText, { rangeOffset: end, rangeLength: 0, text: " // keep as is" });
    expect(anchor.span).toBeUndefined();
  });

  it.each([
    ["typed at the start of the line", { rangeOffset: start, rangeLength: 0, text: "x" }],
    ["joined to the line above", { rangeOffset: start - 1, rangeLength: 1, text: "" }],
    ["a multi-line deletion across it", { rangeOffset: 0, rangeLength: end + 5, text: "" }],
    ["replaced inside", { rangeOffset: start + 10, rangeLength: 4, text: "let" }],
  ])("refuses when the selection's lines changed: %s", (_name, edit) => {
    const anchor = new EditAnchor(documentText, start, end);
    anchor.apply([edit]);
    expect(anchor.span).toBeUndefined();
  });

  it("ignores changes on the neighbouring lines and below", () => {
    const anchor = new EditAnchor(documentText, start, end);
    // The end of line 2 (before its newline) and the start of line 4 (after line 3's newline).
    anchor.apply([{ rangeOffset: start - 1, rangeLength: 0, text: " // two" }]);
    const shifted = start + " // two".length;
    anchor.apply([{ rangeOffset: shifted + LOOP.length + 1, rangeLength: 0, text: "x" }]);
    expect(anchor.span).toEqual({ start: shifted, end: shifted + LOOP.length });
  });

  it("treats a selection of whole lines as ending at its last newline", () => {
    const lines = `${LOOP}\n`;
    const anchor = new EditAnchor(documentText, start, start + lines.length);
    // Typing at the start of the next line is outside the selected lines.
    anchor.apply([{ rangeOffset: start + lines.length, rangeLength: 0, text: "x" }]);
    expect(anchor.span).toEqual({ start, end: start + lines.length });
  });

  it("applies several changes of one event in order", () => {
    const anchor = new EditAnchor(documentText, start, end);
    anchor.apply([
      { rangeOffset: secondCopy, rangeLength: 0, text: "// below\n" },
      { rangeOffset: 0, rangeLength: 0, text: "// a\n// b\n" },
    ]);
    expect(anchor.span).toEqual({ start: start + 10, end: end + 10 });
  });
});
