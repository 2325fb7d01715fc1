import { describe, expect, it } from "vitest";
import { resolveShortcut, SHORTCUTS, type KeyPress } from "./shortcuts.ts";

const press = (change: Partial<KeyPress>): KeyPress => ({
  key: "",
  altKey: false,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  inTextField: false,
  inComposer: false,
  ...change,
});

describe("shortcuts", () => {
  it("Esc interrupts everywhere, Enter sends and Alt+Enter queues in the message box", () => {
    expect(resolveShortcut(press({ key: "Escape", inTextField: true, inComposer: true }))).toBe(
      "interrupt",
    );
    expect(resolveShortcut(press({ key: "Enter", inTextField: true, inComposer: true }))).toBe(
      "send",
    );
    expect(
      resolveShortcut(press({ key: "Enter", altKey: true, inTextField: true, inComposer: true })),
    ).toBe("queue");
    expect(
      resolveShortcut(press({ key: "Enter", shiftKey: true, inTextField: true, inComposer: true })),
    ).toBeUndefined();
  });

  it("? and / work outside text fields only; Alt shortcuts read the physical key", () => {
    expect(resolveShortcut(press({ key: "?" }))).toBe("toggle-help");
    expect(resolveShortcut(press({ key: "?", inTextField: true }))).toBeUndefined();
    expect(resolveShortcut(press({ key: "/" }))).toBe("focus-composer");
    expect(
      resolveShortcut(press({ key: "ß", code: "KeyS", altKey: true, inTextField: true })),
    ).toBe("focus-sessions");
    expect(resolveShortcut(press({ key: "u", code: "KeyU", altKey: true }))).toBe("undo-last-edit");
    expect(resolveShortcut(press({ key: "c", ctrlKey: true }))).toBeUndefined();
  });

  it("y, a and n answer a waiting approval, but never while a message is being typed", () => {
    const waiting = { approvalPending: true };
    expect(resolveShortcut(press({ key: "y", ...waiting }))).toBe("approve");
    expect(resolveShortcut(press({ key: "a", ...waiting }))).toBe("approve-always");
    expect(resolveShortcut(press({ key: "n", ...waiting }))).toBe("deny");
    const emptyBox = { inTextField: true, inComposer: true, composerEmpty: true };
    expect(resolveShortcut(press({ key: "y", ...waiting, ...emptyBox }))).toBe("approve");
    expect(
      resolveShortcut(press({ key: "y", ...waiting, ...emptyBox, composerEmpty: false })),
    ).toBeUndefined();
    expect(resolveShortcut(press({ key: "y", ...waiting, inTextField: true }))).toBeUndefined();
    expect(resolveShortcut(press({ key: "y" }))).toBeUndefined();
  });

  it("lists every action it resolves", () => {
    const listed = new Set(SHORTCUTS.map((shortcut) => shortcut.action));
    for (const action of [
      "interrupt",
      "send",
      "queue",
      "toggle-help",
      "focus-composer",
      "focus-sessions",
      "focus-files",
      "new-session",
      "undo-last-edit",
      "approve",
      "approve-always",
      "deny",
    ]) {
      expect(listed.has(action as never)).toBe(true);
    }
  });
});
