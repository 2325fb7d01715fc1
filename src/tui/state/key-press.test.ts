import { describe, expect, it } from "vitest";
import { createKeyReader, type KeyPress } from "./key-press.ts";

const read = (...inputs: string[]): KeyPress[] => {
  const reader = createKeyReader();
  return inputs.flatMap((input) => reader.read(input));
};
const names = (keys: KeyPress[]): string[] =>
  keys.map((key) =>
    key.name === "text" || key.name === "ctrl" ? `${key.name}:${key.text}` : key.name,
  );

describe("createKeyReader", () => {
  it("splits a burst into its keys, in order (issue 27: Ctrl+U in a send-keys burst was typed)", () => {
    expect(names(read("zz\u0015/sessions\r"))).toEqual([
      "text:zz",
      "ctrl:u",
      "text:/sessions",
      "return",
    ]);
    expect(names(read("ab\u007f\tc\u001b[A\u0003"))).toEqual([
      "text:ab",
      "backspace",
      "tab",
      "text:c",
      "up",
      "ctrl:c",
    ]);
  });

  it("tells Delete from Backspace and reads arrows, Home/End and Alt-modified keys", () => {
    expect(names(read("\u001b[3~", "\u007f", "\b"))).toEqual(["delete", "backspace", "backspace"]);
    expect(names(read("\u001b[H", "\u001b[4~", "\u001bOF", "\u001b[D", "\u001b[Z"))).toEqual([
      "home",
      "end",
      "end",
      "left",
      "backtab",
    ]);
    expect(read("\u001b[1;3A")).toEqual([{ name: "up", text: "", meta: true }]);
    expect(read("\u001b\u001b[A")).toEqual([{ name: "up", text: "", meta: true }]);
    expect(read("\u001b[1;2A")).toEqual([{ name: "up", text: "", meta: false }]);
    expect(read("\u001b\r")).toEqual([{ name: "newline", text: "", meta: false }]);
    expect(read("\u001b\u007f")).toEqual([{ name: "backspace", text: "", meta: true }]);
    expect(read("\u001bb")).toEqual([{ name: "text", text: "b", meta: true }]);
    expect(names(read("\u001b"))).toEqual(["escape"]);
    // An unknown sequence is dropped whole, never typed.
    expect(names(read("\u001b[15~x"))).toEqual(["text:x"]);
  });

  it("keeps a bracketed paste as text, newlines included, even across reads", () => {
    expect(read("\u001b[200~line one\rline two\u001b[201~\r")).toEqual([
      { name: "paste", text: "line one\rline two", meta: false },
      { name: "return", text: "", meta: false },
    ]);
    expect(names(read("\u001b[200~first\r", "second\u001b[201~x"))).toEqual([
      "paste",
      "paste",
      "text:x",
    ]);
  });
});
