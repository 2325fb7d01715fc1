// What the "Ask Spark" view shows of a session: the events folded by the shared transcript fold
// (src/protocol/transcript, as the browser and the terminal fold them), and what each event adds
// told to the page as entries it appends: plain text it renders with textContent, or DOM built
// from parsed Markdown for the answer (model and tool text is data, never markup). The user's own
// question is echoed by the page when sent; only a replay shows it from the session's events.
import type { SessionEvent } from "../../../../src/protocol/agent/index.ts";
import {
  approvalQuestion,
  emptyTranscript,
  foldSessionEventWithChanges,
  type TranscriptChange,
  type TranscriptState,
} from "../../../../src/protocol/transcript/index.ts";

export type TranscriptEntry =
  | { kind: "user"; text: string }
  | { kind: "assistant-delta"; text: string }
  | { kind: "tool"; text: string }
  | { kind: "approval"; approvalId: string; text: string }
  | { kind: "status"; text: string }
  | { kind: "error"; text: string }
  | { kind: "busy"; busy: boolean };

export interface AskTranscript {
  state: TranscriptState;
  /** Events folded so far: the fold's item ids. */
  sequence: number;
}

export const emptyAskTranscript: AskTranscript = { state: emptyTranscript, sequence: 0 };

export interface AskFoldOptions {
  /** Replaying a session's events: its questions are shown too, as `readQuestion` makes them. */
  replaying?: boolean;
  readQuestion?: (turnText: string) => string;
}

/** Folds one event; `entries` is what the page appends for it. */
export function foldAskEvent(
  transcript: AskTranscript,
  event: SessionEvent,
  options: AskFoldOptions = {},
): { transcript: AskTranscript; entries: TranscriptEntry[] } {
  const sequence = transcript.sequence + 1;
  const { state, changes } = foldSessionEventWithChanges(transcript.state, event, sequence);
  const entries: TranscriptEntry[] = [];
  for (const entry of changes.flatMap((change) => entriesFor(change, options))) {
    // One "stopped" however the interrupt showed (a cut answer, a notice, or both).
    if (isStop(entry) && entries.some(isStop)) continue;
    entries.push(entry);
  }
  if (state.status !== transcript.state.status)
    entries.push({ kind: "busy", busy: state.status !== "idle" });
  if (event.type === "model-changed")
    entries.push({ kind: "status", text: `model: ${event.model}` });
  return { transcript: { state, sequence }, entries };
}

function entriesFor(change: TranscriptChange, options: AskFoldOptions): TranscriptEntry[] {
  const { item } = change;
  if (change.type === "changed") {
    if (item.kind !== "assistant" || change.previous.kind !== "assistant") return [];
    const added = change.appended ?? "";
    if (item.interrupted && !change.previous.interrupted)
      return [{ kind: "status", text: "stopped" }];
    return added === "" ? [] : [{ kind: "assistant-delta", text: added }];
  }
  switch (item.kind) {
    case "user":
      // Live, the page echoed the question as it was sent; a steer or queued message it did not.
      if (item.via !== undefined) return [{ kind: "user", text: item.text }];
      if (options.replaying !== true) return [];
      return [{ kind: "user", text: options.readQuestion?.(item.text) ?? item.text }];
    case "assistant":
      return [{ kind: "assistant-delta", text: item.text }];
    case "tool":
      return [{ kind: "tool", text: item.summary }];
    case "edit":
      return [{ kind: "tool", text: `edited ${item.path}` }];
    case "approval":
      return [{ kind: "approval", approvalId: item.id, text: approvalQuestion(item) }];
    case "notice":
      if (item.about === "interrupted") return [{ kind: "status", text: "stopped" }];
      return [{ kind: item.about === "error" ? "error" : "status", text: item.text }];
    default:
      return item satisfies never;
  }
}

function isStop(entry: TranscriptEntry): boolean {
  return entry.kind === "status" && entry.text === "stopped";
}
