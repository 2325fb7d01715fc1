// The one fold of a session's events into its transcript, for every surface: which item an event
// adds or changes, what closes a streaming answer, where an approval goes, what each notice says.
// Items are immutable values (a changed item is a new object), so the browser's keyed, memoised
// rows re-render only when their own item changed; the changes are returned too, for the editor
// and the terminal, which draw only what is new.
import type { HistoryItem, McpToolName, SessionEvent } from "../agent/index.ts";
import { formatTokens } from "./format-tokens.ts";
import { ItemEdit } from "./item-edit.ts";
import {
  emptyTranscript,
  plainMessage,
  type NoticeTopic,
  type ReadMessage,
  type TranscriptChange,
  type TranscriptItem,
  type TranscriptItemOf,
  type TranscriptState,
} from "./transcript-items.ts";

/** Folds one event; `sequence` (the event's number) makes item ids unique across turns. */
export function foldSessionEvent(
  state: TranscriptState,
  event: SessionEvent,
  sequence: number,
  readMessage: ReadMessage = plainMessage,
): TranscriptState {
  return foldSessionEventWithChanges(state, event, sequence, readMessage).state;
}

export function foldSessionEventWithChanges(
  state: TranscriptState,
  event: SessionEvent,
  sequence: number,
  readMessage: ReadMessage = plainMessage,
): { state: TranscriptState; changes: readonly TranscriptChange[] } {
  const edit = new ItemEdit(state.items);
  const next = applyEvent(state, event, edit, sequence, readMessage);
  const items = edit.items();
  // An event that changed nothing leaves the very same state (a memoised view skips its render).
  if (next === state && items === state.items) return { state, changes: [] };
  return { state: { ...next, items }, changes: edit.changes };
}

/** A session's history (session/attach's `history`) as a transcript, each entry one item. */
export function transcriptFromHistory(
  history: readonly HistoryItem[],
  readMessage: ReadMessage = plainMessage,
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
      callId: id,
      name: "tool",
      summary: firstLine(entry.text),
      arguments: "",
      output: entry.text,
      isError: false,
    };
  });
  return { ...emptyTranscript, items };
}

const DECISION_WORDS = {
  approve: "approved",
  always: "approved, and this exact command from now on in this session",
  deny: "denied",
  cancelled: "cancelled",
} as const;

/** Applies `event` to `edit` (the items) and returns the rest of the state. */
function applyEvent(
  state: TranscriptState,
  event: SessionEvent,
  edit: ItemEdit,
  sequence: number,
  readMessage: ReadMessage,
): TranscriptState {
  const notice = (text: string, about: NoticeTopic, tone: "info" | "error" = "info"): void => {
    closeAnswer(edit);
    edit.append({ kind: "notice", id: `notice-${sequence}`, text, tone, about });
  };
  switch (event.type) {
    case "session-started": {
      // Only a missing sandbox is news: it is why every command off the read-only list asks.
      if (event.commandSandbox?.kind === "none") {
        const text = `Command sandbox: ${event.commandSandbox.description}`;
        // Said once: a resumed session's own start repeats what its first start said.
        if (!edit.some((item) => item.kind === "notice" && item.text === text))
          notice(text, "sandbox", "error");
      }
      return { ...state, model: event.model ?? state.model };
    }
    case "turn-started":
      closeAnswer(edit);
      edit.append(userItem(`user-${sequence}`, event.text, readMessage));
      return { ...state, activeTurnId: event.turnId };
    case "user-message":
      closeAnswer(edit);
      edit.append({ ...userItem(`user-${sequence}`, event.text, readMessage), via: event.via });
      return state;
    case "text-delta": {
      const last = edit.last();
      if (last?.kind === "assistant" && last.streaming)
        edit.replaceLast({ ...last, text: last.text + event.text }, event.text);
      else
        edit.append({
          kind: "assistant",
          id: `assistant-${sequence}`,
          text: event.text,
          streaming: true,
          interrupted: false,
        });
      return state;
    }
    case "tool-call":
      closeAnswer(edit);
      edit.append({
        kind: "tool",
        id: `tool-${event.callId}`,
        callId: event.callId,
        name: event.name,
        summary: event.summary,
        arguments: event.arguments,
        isError: false,
      });
      return state;
    case "tool-result":
      edit.replaceWhere(
        (item) => item.kind === "tool" && item.callId === event.callId,
        (item) => ({
          ...item,
          output: event.output,
          isError: event.isError,
          durationMs: event.durationMs,
        }),
      );
      return state;
    case "edit-applied":
      closeAnswer(edit);
      edit.append({
        kind: "edit",
        id: `edit-${sequence}`,
        callId: event.callId,
        undoEntryId: event.undoEntryId,
        path: event.path,
        change: event.kind,
        ...(event.movedFrom === undefined ? {} : { movedFrom: event.movedFrom }),
        unifiedDiff: event.unifiedDiff,
        linesAdded: event.linesAdded,
        linesRemoved: event.linesRemoved,
        undone: false,
      });
      return state;
    case "edit-undone": {
      closeAnswer(edit);
      edit.replaceWhere(
        (item) => item.kind === "edit" && item.undoEntryId === event.undoEntryId,
        (item) => ({ ...(item as TranscriptItemOf<"edit">), undone: true }),
      );
      const paths = event.files.map((file) => `${file.path} (${file.action})`).join(", ");
      notice(`Undone: ${paths}`, "undone");
      return state;
    }
    case "interrupted": {
      // One marker: the cut answer's badge, or a notice when no answer was streaming.
      const last = edit.last();
      const marked = last?.kind === "assistant" && last.streaming;
      if (marked) edit.replaceLast({ ...last, streaming: false, interrupted: true });
      const count = event.discardedQueue.length;
      const dropped = count === 0 ? "" : `Dropped ${count} queued message(s).`;
      const text =
        event.reason === "steer"
          ? "Steered."
          : marked
            ? dropped
            : `Interrupted.${dropped === "" ? "" : ` ${dropped}`}`;
      if (text !== "") notice(text, "interrupted");
      return state;
    }
    case "turn-finished":
      closeAnswer(edit);
      if (event.reason === "max_steps")
        notice(
          `The turn stopped after ${event.steps} model calls (its max steps).`,
          "turn-ended",
          "error",
        );
      // An error's own event says what went wrong; another reason (a newer server's) is named.
      else if (!["completed", "interrupted", "error"].includes(event.reason))
        notice(`Turn ended: ${event.reason}.`, "turn-ended", "error");
      return { ...state, activeTurnId: undefined };
    case "error":
      closeAnswer(edit);
      edit.append({
        kind: "notice",
        id: `notice-${sequence}`,
        text: event.error.message,
        tone: "error",
        about: "error",
        ...(event.error.code === undefined ? {} : { code: event.error.code }),
      });
      return state;
    case "approval-requested": {
      closeAnswer(edit);
      // Asked before the command runs: the card goes above the command's row and its output.
      const waiting = edit.findLastIndex(
        (item) => item.kind === "tool" && item.output === undefined,
      );
      edit.insert(waiting < 0 ? undefined : waiting, {
        kind: "approval",
        id: event.approvalId,
        command: event.command,
        cwd: event.cwd,
        ...(event.mcpTool === undefined ? {} : { mcpTool: event.mcpTool }),
      });
      return state;
    }
    case "approval-resolved":
      edit.replaceWhere(
        (item) => item.kind === "approval" && item.id === event.approvalId,
        (item) => ({ ...(item as TranscriptItemOf<"approval">), decision: event.decision }),
      );
      return state;
    case "status-changed":
      return { ...state, status: event.status };
    case "model-changed":
      return { ...state, model: event.model };
    case "context-compacted":
      notice(
        `Compacted older turns: ${formatTokens(event.tokensBefore)} → ${formatTokens(event.tokensAfter)} tokens.`,
        "compacted",
      );
      return state;
    default:
      // budget, and a newer server's events: nothing to show, and no reason to fail.
      return state;
  }
}

/**
 * Words for an approval's outcome, for a surface that says it rather than marking the card. An
 * MCP tool's "always" covers every later call of the tool, whatever its arguments.
 */
export function approvalOutcome(
  decision: keyof typeof DECISION_WORDS,
  mcpTool?: McpToolName,
): string {
  if (mcpTool === undefined) return `Command ${DECISION_WORDS[decision]}.`;
  const words =
    decision === "always"
      ? `approved, and every call of ${mcpTool.tool} (MCP server ${mcpTool.server}) from now on in this session`
      : DECISION_WORDS[decision];
  return `Tool call ${words}.`;
}

/** The question an approval asks, in one line: a command to run, or an MCP tool to call. */
export function approvalQuestion(approval: { command: string; mcpTool?: McpToolName }): string {
  return approval.mcpTool === undefined
    ? `Run \`${approval.command}\`?`
    : `Call ${approval.mcpTool.tool} on MCP server ${approval.mcpTool.server}: \`${approval.command}\`?`;
}

function closeAnswer(edit: ItemEdit): void {
  const last = edit.last();
  if (last?.kind === "assistant" && last.streaming) edit.replaceLast({ ...last, streaming: false });
}

function userItem(id: string, message: string, readMessage: ReadMessage): TranscriptItemOf<"user"> {
  const parts = readMessage(message);
  return {
    kind: "user",
    id,
    text: parts.text,
    ...(parts.files.length === 0 ? {} : { files: parts.files }),
    ...(parts.uploads.length === 0 ? {} : { uploads: parts.uploads }),
  };
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}
