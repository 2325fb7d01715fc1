import { describe, expect, it } from "vitest";
import { editLine, emptyLine, type LineEdit, type LineState } from "./line-editor.ts";

const apply = (edits: LineEdit[], from: LineState = emptyLine): LineState =>
  edits.reduce(editLine, from);

describe("editLine", () => {
  it("inserts at the cursor, moves, and deletes both ways", () => {
    expect(
      apply([
        { type: "insert", text: "helo" },
        { type: "move", to: "left" },
        { type: "insert", text: "l" },
        { type: "move", to: "home" },
        { type: "delete-forward" },
        { type: "insert", text: "H" },
        { type: "move", to: "end" },
        { type: "backspace" },
      ]),
    ).toEqual({ value: "Hell", cursor: 4 });
  });

  it("deletes the word before the cursor, keeps pasted lines, and sets a whole value", () => {
    expect(apply([{ type: "insert", text: "fix the bug " }, { type: "delete-word-back" }])).toEqual(
      { value: "fix the ", cursor: 8 },
    );
    expect(apply([{ type: "insert", text: "a\r\nb\rc" }]).value).toBe("a\nb\nc");
    expect(apply([{ type: "set", value: "again" }])).toEqual({ value: "again", cursor: 5 });
    expect(apply([{ type: "backspace" }, { type: "move", to: "left" }])).toEqual(emptyLine);
  });
});
