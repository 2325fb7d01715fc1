// The input line's text and cursor, edited by keys: a pure reducer so editing is tested plainly.
import type { KeyPress } from "./key-press.ts";

export interface LineState {
  value: string;
  cursor: number;
}

export type LineEdit =
  | { type: "insert"; text: string }
  | { type: "backspace" }
  | { type: "delete-forward" }
  | { type: "move"; to: "left" | "right" | "home" | "end" }
  | { type: "delete-word-back" }
  | { type: "set"; value: string };

export const emptyLine: LineState = { value: "", cursor: 0 };

export function editLine(state: LineState, edit: LineEdit): LineState {
  const { value, cursor } = state;
  switch (edit.type) {
    case "insert": {
      // A pasted block keeps its lines; a terminal sends a pasted newline as \r.
      const text = edit.text.replace(/\r\n?/g, "\n");
      return {
        value: value.slice(0, cursor) + text + value.slice(cursor),
        cursor: cursor + text.length,
      };
    }
    case "backspace":
      if (cursor === 0) return state;
      return { value: value.slice(0, cursor - 1) + value.slice(cursor), cursor: cursor - 1 };
    case "delete-forward":
      if (cursor === value.length) return state;
      return { value: value.slice(0, cursor) + value.slice(cursor + 1), cursor };
    case "move": {
      const to = { left: cursor - 1, right: cursor + 1, home: 0, end: value.length }[edit.to];
      return { value, cursor: Math.max(0, Math.min(value.length, to)) };
    }
    case "delete-word-back": {
      const start = value.slice(0, cursor).replace(/\S+\s*$/, "").length;
      return { value: value.slice(0, start) + value.slice(cursor), cursor: start };
    }
    case "set":
      return { value: edit.value, cursor: edit.value.length };
    default:
      edit satisfies never;
      return state;
  }
}

const CTRL_EDITS: Partial<Record<string, LineEdit>> = {
  a: { type: "move", to: "home" },
  e: { type: "move", to: "end" },
  u: { type: "set", value: "" },
  w: { type: "delete-word-back" },
};

/** What an editing key does to the line; undefined for keys that do not edit (Enter, Esc, …). */
export function editForKey(key: KeyPress): LineEdit | undefined {
  switch (key.name) {
    case "text":
      // Alt plus a letter is a shortcut this line has none of, not text.
      return key.meta ? undefined : { type: "insert", text: key.text };
    case "paste":
      return { type: "insert", text: key.text };
    case "newline":
      return { type: "insert", text: "\n" };
    case "backspace":
      return key.meta ? { type: "delete-word-back" } : { type: "backspace" };
    case "delete":
      return { type: "delete-forward" };
    case "left":
    case "right":
    case "home":
    case "end":
      return { type: "move", to: key.name };
    case "ctrl":
      return CTRL_EDITS[key.text];
    default:
      return undefined;
  }
}
