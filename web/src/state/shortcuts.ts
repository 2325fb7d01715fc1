// The page's keyboard shortcuts: one table that the help dialog (`?`) lists and the key handler
// resolves from, so the two cannot disagree.

export type ShortcutAction =
  | "interrupt"
  | "send"
  | "queue"
  | "toggle-help"
  | "focus-composer"
  | "focus-sessions"
  | "focus-files"
  | "new-session"
  | "undo-last-edit"
  | "approve"
  | "approve-always"
  | "deny";

export interface Shortcut {
  keys: string;
  action: ShortcutAction;
  description: string;
  /** Also works while typing in a text field. */
  inTextFields: boolean;
}

export const SHORTCUTS: readonly Shortcut[] = [
  {
    keys: "Esc",
    action: "interrupt",
    description: "Stop the running turn (partial output is kept)",
    inTextFields: true,
  },
  {
    keys: "Enter",
    action: "send",
    description: "Send; while the model streams, steer it",
    inTextFields: true,
  },
  {
    keys: "Alt+Enter",
    action: "queue",
    description: "Queue the message for after this turn",
    inTextFields: true,
  },
  {
    keys: "Shift+Enter",
    action: "send",
    description: "New line in the message",
    inTextFields: true,
  },
  {
    keys: "?",
    action: "toggle-help",
    description: "Show or hide these shortcuts",
    inTextFields: false,
  },
  {
    keys: "/",
    action: "focus-composer",
    description: "Focus the message box",
    inTextFields: false,
  },
  {
    keys: "Alt+S",
    action: "focus-sessions",
    description: "Focus the session list",
    inTextFields: true,
  },
  {
    keys: "Alt+F",
    action: "focus-files",
    description: "Focus the workspace files",
    inTextFields: true,
  },
  { keys: "Alt+N", action: "new-session", description: "Start a new session", inTextFields: true },
  {
    keys: "Alt+U",
    action: "undo-last-edit",
    description: "Undo the session's last edit",
    inTextFields: true,
  },
  {
    keys: "y",
    action: "approve",
    description: "Approve the command waiting for approval (also from an empty message box)",
    inTextFields: false,
  },
  {
    keys: "a",
    action: "approve-always",
    description: "Approve it, and that command always in this session",
    inTextFields: false,
  },
  { keys: "n", action: "deny", description: "Deny the command", inTextFields: false },
];

const APPROVAL_KEYS: Readonly<Record<string, ShortcutAction>> = {
  y: "approve",
  a: "approve-always",
  n: "deny",
};

export interface KeyPress {
  key: string;
  code?: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  /** The focus is in an input or textarea. */
  inTextField: boolean;
  /** The focus is in the message box itself (Enter there sends). */
  inComposer: boolean;
  /** A command waits for approval, and the message box holds no text (y/n/a answer it). */
  approvalPending?: boolean;
  composerEmpty?: boolean;
}

export function resolveShortcut(press: KeyPress): ShortcutAction | undefined {
  if (press.ctrlKey || press.metaKey) return undefined;
  if (press.key === "Escape") return "interrupt";
  if (press.key === "Enter" && press.inComposer) {
    if (press.shiftKey) return undefined;
    return press.altKey ? "queue" : "send";
  }
  if (press.altKey) {
    // Alt changes `key` on some layouts (Alt+S is "ß" on a Mac): read the physical key.
    const letter =
      press.code?.startsWith("Key") === true
        ? press.code.slice(3).toLowerCase()
        : press.key.toLowerCase();
    if (letter === "s") return "focus-sessions";
    if (letter === "f") return "focus-files";
    if (letter === "n") return "new-session";
    if (letter === "u") return "undo-last-edit";
    return undefined;
  }
  const answer = APPROVAL_KEYS[press.key];
  if (answer !== undefined && press.approvalPending === true && !press.shiftKey) {
    // Typing into a message is never an answer; the first key in an empty box may be.
    if (!press.inTextField || (press.inComposer && press.composerEmpty === true)) return answer;
  }
  if (press.inTextField) return undefined;
  if (press.key === "?") return "toggle-help";
  if (press.key === "/") return "focus-composer";
  return undefined;
}
