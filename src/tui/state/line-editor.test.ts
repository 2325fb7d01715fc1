import { describe, expect, it } from "vitest";
import type { KeyPress } from "./key-press.ts";
import { editForKey, editLine, emptyLine, type LineEdit, type LineState } from "./line-editor.ts";

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

describe("editForKey", () => {
  const press = (name: KeyPress["name"], text = "", meta = false): KeyPress => ({
    name,
    text,
    meta,
  });

  it("deletes forward with Delete, back with Backspace, a word with Alt+Backspace", () => {
    const line = { value: "one two", cursor: 4 };
    const after = (key: KeyPress): LineState => {
      const edit = editForKey(key);
      return edit === undefined ? line : editLine(line, edit);
    };
    expect(after(press("delete"))).toEqual({ value: "one wo", cursor: 4 });
    expect(after(press("backspace"))).toEqual({ value: "onetwo", cursor: 3 });
    expect(after(press("backspace", "", true))).toEqual({ value: "two", cursor: 0 });
    expect(after(press("ctrl", "u"))).toEqual(emptyLine);
    expect(after(press("paste", "a\rb"))).toEqual({ value: "one a\nbtwo", cursor: 7 });
    expect(editForKey(press("text", "b", true))).toBeUndefined();
    expect(editForKey(press("return"))).toBeUndefined();
  });
});
