// How the terminal shows what one event changed in the shared transcript (src/protocol/transcript,
// the fold the browser and the editor use too): as rows written once to Ink's <Static>, with only
// the answer's current line and a running tool call live. An answer is shown a line at a time; an
// undo shows its diffs, an approval's answer is said in words; interrupts are drawn by the reducer.
import type { SessionEvent } from "../../protocol/agent/session-events.ts";
import {
  approvalOutcome,
  type TranscriptChange,
  type TranscriptItem,
} from "../../protocol/transcript/index.ts";
import { appendAnswerText } from "./answer-lines.ts";
import type { SessionViewState } from "./session-view.ts";
import { finishToolCall } from "./tool-call-items.ts";
import { append, finishLive, takeId } from "./transcript-draft.ts";

export function showTranscriptChange(
  draft: SessionViewState,
  change: TranscriptChange,
  event: SessionEvent,
): void {
  if (change.type === "added") showAdded(draft, change.item, event);
  else showChanged(draft, change.item, change.previous, change.appended);
}

function showAdded(draft: SessionViewState, item: TranscriptItem, event: SessionEvent): void {
  switch (item.kind) {
    case "user":
      finishLive(draft);
      append(draft, {
        kind: "user",
        text: item.text,
        ...(item.via === undefined ? {} : { via: item.via }),
      });
      return;
    case "assistant":
      appendAnswerText(draft, item.text);
      return;
    case "tool":
      finishLive(draft);
      draft.live = {
        kind: "tool-call",
        id: takeId(draft),
        callId: item.callId,
        name: item.name,
        summary: item.summary,
        status: "running",
      };
      return;
    case "edit": {
      // The edit closes its call: the diff below it says what the call did.
      finishToolCall(draft, item.callId, false, undefined, "");
      const record = {
        path: item.path,
        editKind: item.change,
        unifiedDiff: item.unifiedDiff,
        linesAdded: item.linesAdded,
        linesRemoved: item.linesRemoved,
      };
      append(draft, {
        kind: "edit",
        ...record,
        ...(item.movedFrom === undefined ? {} : { movedFrom: item.movedFrom }),
      });
      draft.edits.push({ ...record, undoEntryId: item.undoEntryId });
      return;
    }
    case "approval":
      // The command waiting for the answer stays live, so its result still finds it.
      if (draft.live?.kind !== "tool-call") finishLive(draft);
      draft.pendingApproval = {
        approvalId: item.id,
        command: item.command,
        cwd: item.cwd,
        ...(item.mcpTool === undefined ? {} : { mcpTool: item.mcpTool }),
      };
      return;
    case "notice":
      showNotice(draft, item, event);
      return;
    default:
      item satisfies never;
  }
}

function showNotice(
  draft: SessionViewState,
  notice: Extract<TranscriptItem, { kind: "notice" }>,
  event: SessionEvent,
): void {
  switch (notice.about) {
    case "undone":
      // The terminal shows what an undo restored or deleted, as diffs.
      finishLive(draft);
      if (event.type === "edit-undone") append(draft, { kind: "undo", files: event.files });
      return;
    case "interrupted":
      // Drawn by the reducer as one ⏹ line with its reason, whatever the fold's words.
      return;
    case "sandbox": {
      // In run-tui's words, which it says at start-up (the in-process session's own start comes
      // before the UI listens): said once, however many starts a resume replays.
      const description =
        event.type === "session-started" ? event.commandSandbox?.description : undefined;
      const text = description === undefined ? notice.text : `command sandbox: ${description}`;
      if (!draft.finished.some((item) => item.kind === "notice" && item.text === text))
        append(draft, { kind: "notice", text, tone: "warning" });
      return;
    }
    default:
      if (notice.tone === "error") {
        finishLive(draft);
        append(draft, {
          kind: "error",
          message: notice.text,
          ...(notice.code === undefined ? {} : { code: notice.code }),
        });
      } else append(draft, { kind: "notice", text: notice.text, tone: "info" });
  }
}

function showChanged(
  draft: SessionViewState,
  item: TranscriptItem,
  previous: TranscriptItem,
  appended: string | undefined,
): void {
  if (item.kind === "assistant" && previous.kind === "assistant") {
    if (appended !== undefined && appended !== "") appendAnswerText(draft, appended);
    if (item.interrupted && draft.live?.kind === "assistant")
      draft.live = { ...draft.live, interrupted: true };
    if (!item.streaming && draft.live?.kind === "assistant") finishLive(draft);
    return;
  }
  if (item.kind === "tool" && previous.kind === "tool" && item.output !== undefined) {
    if (previous.output === undefined)
      finishToolCall(draft, item.callId, item.isError, item.durationMs, item.output);
    return;
  }
  if (item.kind === "edit" && item.undone) {
    draft.edits = draft.edits.filter((edit) => edit.undoEntryId !== item.undoEntryId);
    return;
  }
  if (item.kind === "approval" && item.decision !== undefined && previous.kind === "approval") {
    if (previous.decision !== undefined) return;
    if (draft.pendingApproval?.approvalId === item.id) draft.pendingApproval = undefined;
    append(draft, {
      kind: "notice",
      text: approvalOutcome(item.decision, item.mcpTool),
      tone: "info",
    });
  }
}
