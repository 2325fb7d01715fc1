// The messages between the Ask Spark page (a webview) and the extension: one module both import,
// so each side is typed by the other's contract. What the page sends is checked on arrival, as
// anything crossing a process boundary is.
import type { TranscriptEntry } from "./ask-transcript.ts";

export type PageMessage =
  | { type: "ready" }
  /** `files`: workspace paths chosen with `@`, listed after the question. */
  | { type: "ask"; askId: number; text: string; files: string[] }
  /** Workspace files matching an `@` mention being typed; answered with "files". */
  | { type: "find-files"; requestId: number; query: string }
  | { type: "stop" }
  | { type: "new-chat" }
  | { type: "approve" | "deny"; approvalId: string }
  | { type: "copy" | "insert" | "apply"; text: string }
  | { type: "open-link"; href: string };

export type HostMessage =
  | TranscriptEntry
  /** What became of a question the page echoed: it is on its way, it went, or it failed. */
  | { kind: "ask-state"; askId: number; state: "connecting" | "sent" | "failed"; text?: string }
  | { kind: "busy"; busy: boolean }
  /** The conversation above is not the server's: a new session began after a restart or drop. */
  | { kind: "session-break"; text: string }
  | { kind: "clear" }
  /** The active file and selection a question would carry. */
  | { kind: "context"; text: string }
  /** Put the cursor in the question box (the focus-Ask key). */
  | { kind: "focus-prompt" }
  /** The answer to "find-files". */
  | { kind: "files"; requestId: number; files: string[] };

export function parsePageMessage(value: unknown): PageMessage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const message = value as Record<string, unknown>;
  const text = typeof message.text === "string" ? message.text : undefined;
  switch (message.type) {
    case "ready":
    case "stop":
    case "new-chat":
      return { type: message.type };
    case "ask":
      return typeof message.askId === "number" && text !== undefined && text.trim() !== ""
        ? { type: "ask", askId: message.askId, text, files: stringsOf(message.files) }
        : undefined;
    case "find-files":
      return typeof message.requestId === "number" && typeof message.query === "string"
        ? { type: "find-files", requestId: message.requestId, query: message.query }
        : undefined;
    case "approve":
    case "deny":
      return typeof message.approvalId === "string"
        ? { type: message.type, approvalId: message.approvalId }
        : undefined;
    case "copy":
    case "insert":
    case "apply":
      return text === undefined ? undefined : { type: message.type, text };
    case "open-link":
      return typeof message.href === "string"
        ? { type: "open-link", href: message.href }
        : undefined;
    default:
      return undefined;
  }
}

/** The strings of an array from the page (anything else: none). */
function stringsOf(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string" && item !== "")
    : [];
}
