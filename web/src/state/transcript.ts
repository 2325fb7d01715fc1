// One session's conversation as the page shows it: session events folded into transcript items.
// Items are immutable values (a changed item is a new object) so keyed, memoised rows re-render
// only when their own item changed; the list itself is replaced on every change.
import type {
  HistoryItem,
  SessionEvent,
  SessionStatus,
  ApprovalDecision,
} from "../../../src/protocol/agent/index.ts";
import { parseComposedMessage, type MessageParts } from "./attachments.ts";
import { formatTokens } from "../../../src/protocol/transcript/index.ts";

export type TranscriptItem =
  | {
      kind: "user";
      id: string;
      /** What the user typed; named files and uploads are apart, shown as chips. */
      text: string;
      via?: "steer" | "queue";
      files?: readonly string[];
      uploads?: MessageParts["uploads"];
    }
  | { kind: "assistant"; id: string; text: string; streaming: boolean; interrupted: boolean }
  | {
      kind: "tool";
      id: string;
      name: string;
      summary: string;
      arguments: string;
      output?: string;
      isError: boolean;
      durationMs?: number;
    }
  | {
      kind: "edit";
      id: string;
      undoEntryId: string;
      path: string;
      change: "add" | "delete" | "update" | "move";
      movedFrom?: string;
      unifiedDiff: string;
      linesAdded: number;
      linesRemoved: number;
      undone: boolean;
    }
  | {
      kind: "approval";
      id: string;
      command: string;
      cwd: string;
      decision?: ApprovalDecision | "cancelled";
    }
  | { kind: "notice"; id: string; text: string; tone: "info" | "error" };

export interface TranscriptState {
  items: readonly TranscriptItem[];
  status: SessionStatus;
  /** The turn the model is streaming now, if any. */
  activeTurnId: string | undefined;
  model: string | undefined;
}

export const emptyTranscript: TranscriptState = {
  items: [],
  status: "idle",
  activeTurnId: undefined,
  model: undefined,
};

/** How a sent message splits into its parts: parsed, unless the store knows them already. */
export type ReadMessage = (message: string) => MessageParts;

export function transcriptFromHistory(
  history: readonly HistoryItem[],
  readMessage: ReadMessage = parseComposedMessage,
): TranscriptState {
  const items = history.map((entry, index): TranscriptItem => {
    const id = `history-${index}`;
    if (entry.role === "user") return userItem(id, entry.text, readMessage);
    if (entry.role === "assistant") {
      return { kind: "assistant", id, text: entry.text, streaming: false, interrupted: false };
    }
    return {
      kind: "tool",
      id,
      name: "tool",
      summary: firstLine(entry.text),
      arguments: "",
      output: entry.text,
      isError: false,
    };
  });
  return { ...emptyTranscript, items };
}

/** Folds one event into the transcript; `sequence` makes ids unique across turns. */
export function applySessionEvent(
  state: TranscriptState,
  event: SessionEvent,
  sequence: number,
  readMessage: ReadMessage = parseComposedMessage,
): TranscriptState {
  switch (event.type) {
    case "session-started": {
      const model = event.model ?? state.model;
      // Only a missing sandbox is news: it is why every command off the read-only list asks.
      if (event.commandSandbox?.kind !== "none") return { ...state, model };
      const text = `Command sandbox: ${event.commandSandbox.description}`;
      return { ...state, model, items: [...state.items, notice(sequence, text, "error")] };
    }
    case "turn-started":
      return {
        ...state,
        activeTurnId: event.turnId,
        items: [...state.items, userItem(`user-${sequence}`, event.text, readMessage)],
      };
    case "user-message":
      return {
        ...state,
        items: [
          ...closeAssistant(state.items),
          { ...userItem(`user-${sequence}`, event.text, readMessage), via: event.via },
        ],
      };
    case "text-delta":
      return { ...state, items: appendText(state.items, event.text, sequence) };
    case "tool-call":
      return {
        ...state,
        items: [
          ...closeAssistant(state.items),
          {
            kind: "tool",
            id: `tool-${event.callId}`,
            name: event.name,
            summary: event.summary,
            arguments: event.arguments,
            isError: false,
          },
        ],
      };
    case "tool-result":
      return {
        ...state,
        items: replaceItem(state.items, `tool-${event.callId}`, (item) =>
          item.kind === "tool"
            ? {
                ...item,
                output: event.output,
                isError: event.isError,
                durationMs: event.durationMs,
              }
            : item,
        ),
      };
    case "edit-applied":
      return {
        ...state,
        items: [
          ...closeAssistant(state.items),
          {
            kind: "edit",
            id: `edit-${sequence}`,
            undoEntryId: event.undoEntryId,
            path: event.path,
            change: event.kind,
            ...(event.movedFrom === undefined ? {} : { movedFrom: event.movedFrom }),
            unifiedDiff: event.unifiedDiff,
            linesAdded: event.linesAdded,
            linesRemoved: event.linesRemoved,
            undone: false,
          },
        ],
      };
    case "edit-undone": {
      const items = state.items.map((item) =>
        item.kind === "edit" && item.undoEntryId === event.undoEntryId
          ? { ...item, undone: true }
          : item,
      );
      const paths = event.files.map((file) => `${file.path} (${file.action})`).join(", ");
      return { ...state, items: [...items, notice(sequence, `Undone: ${paths}`, "info")] };
    }
    case "interrupted": {
      // One marker: the cut reply's badge, or a notice when no reply was streaming.
      const marked = state.items.some((item) => item.kind === "assistant" && item.streaming);
      const items = state.items.map((item) =>
        item.kind === "assistant" && item.streaming
          ? { ...item, streaming: false, interrupted: true }
          : item,
      );
      const dropped =
        event.discardedQueue.length === 0
          ? ""
          : `Dropped ${event.discardedQueue.length} queued message(s).`;
      const text =
        event.reason === "steer"
          ? "Steered."
          : marked
            ? dropped
            : `Interrupted.${dropped === "" ? "" : ` ${dropped}`}`;
      if (text === "") return { ...state, items };
      return { ...state, items: [...items, notice(sequence, text, "info")] };
    }
    case "turn-finished": {
      const items = closeAssistant(state.items);
      const ended =
        event.reason === "completed" || event.reason === "interrupted"
          ? items
          : [...items, notice(sequence, `Turn ended: ${event.reason}.`, "error")];
      return { ...state, activeTurnId: undefined, items: ended };
    }
    case "error":
      return {
        ...state,
        items: [...closeAssistant(state.items), notice(sequence, event.error.message, "error")],
      };
    case "approval-requested": {
      // Asked before the command runs: the card goes above the command's row and its output.
      const items = closeAssistant(state.items);
      const approval: TranscriptItem = {
        kind: "approval",
        id: event.approvalId,
        command: event.command,
        cwd: event.cwd,
      };
      const waiting = items.findLastIndex(
        (item) => item.kind === "tool" && item.output === undefined,
      );
      if (waiting < 0) return { ...state, items: [...items, approval] };
      return {
        ...state,
        items: [...items.slice(0, waiting), approval, ...items.slice(waiting)],
      };
    }
    case "approval-resolved":
      return {
        ...state,
        items: replaceItem(state.items, event.approvalId, (item) =>
          item.kind === "approval" ? { ...item, decision: event.decision } : item,
        ),
      };
    case "status-changed":
      return { ...state, status: event.status };
    case "model-changed":
      return { ...state, model: event.model };
    case "context-compacted":
      return {
        ...state,
        items: [
          ...state.items,
          notice(
            sequence,
            `Compacted older turns: ${formatTokens(event.tokensBefore)} → ${formatTokens(event.tokensAfter)} tokens.`,
            "info",
          ),
        ],
      };
    case "budget":
      return state;
    default:
      // A newer server's event: nothing to show, and no reason to fail.
      return state;
  }
}

/** The edit a click on Undo would reach first: the newest one not undone yet. */
export function latestUndoableEdit(items: readonly TranscriptItem[]): string | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind === "edit" && !item.undone) return item.undoEntryId;
  }
  return undefined;
}

/** The approval a y / a / n answers: the newest one still waiting. */
export function pendingApproval(items: readonly TranscriptItem[]): string | undefined {
  const waiting = items.findLast((item) => item.kind === "approval" && item.decision === undefined);
  return waiting?.id;
}

/** How many undo steps reach this entry (edit/undo always undoes the newest first). */
export function undoStepsTo(items: readonly TranscriptItem[], undoEntryId: string): number {
  const pending: string[] = [];
  for (const item of items) {
    if (item.kind === "edit" && !item.undone && !pending.includes(item.undoEntryId)) {
      pending.push(item.undoEntryId);
    }
  }
  const index = pending.indexOf(undoEntryId);
  return index < 0 ? 0 : pending.length - index;
}

function appendText(
  items: readonly TranscriptItem[],
  text: string,
  sequence: number,
): TranscriptItem[] {
  const last = items.at(-1);
  if (last?.kind === "assistant" && last.streaming) {
    const next = items.slice();
    next[next.length - 1] = { ...last, text: last.text + text };
    return next;
  }
  return [
    ...items,
    { kind: "assistant", id: `assistant-${sequence}`, text, streaming: true, interrupted: false },
  ];
}

function closeAssistant(items: readonly TranscriptItem[]): readonly TranscriptItem[] {
  const last = items.at(-1);
  if (last?.kind !== "assistant" || !last.streaming) return items;
  const next = items.slice();
  next[next.length - 1] = { ...last, streaming: false };
  return next;
}

function userItem(
  id: string,
  message: string,
  readMessage: ReadMessage,
): Extract<TranscriptItem, { kind: "user" }> {
  const parts = readMessage(message);
  return {
    kind: "user",
    id,
    text: parts.text,
    ...(parts.files.length === 0 ? {} : { files: parts.files }),
    ...(parts.uploads.length === 0 ? {} : { uploads: parts.uploads }),
  };
}

function replaceItem(
  items: readonly TranscriptItem[],
  id: string,
  change: (item: TranscriptItem) => TranscriptItem,
): TranscriptItem[] {
  return items.map((item) => (item.id === id ? change(item) : item));
}

function notice(sequence: number, text: string, tone: "info" | "error"): TranscriptItem {
  return { kind: "notice", id: `notice-${sequence}`, text, tone };
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}
