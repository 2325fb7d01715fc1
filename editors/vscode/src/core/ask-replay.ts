// What the Ask Spark view shows for a session it attaches to after a window reload: the events the
// server replays (or the history it read back from the session's log) folded as live events are,
// plus the user's questions, which live the page echoes itself and the server only names in
// turn-started.
import type { SessionEvent } from "../../../../src/protocol/agent/index.ts";
import {
  emptyAskTranscript,
  foldAskEvent,
  type AskTranscript,
  type TranscriptEntry,
} from "./ask-transcript.ts";

/** What questionWithContext puts between the question and the editor context it carries. */
const CONTEXT_MARKER = /\n\n\((Active file|Attached): /;

/** The question as the user typed it: the file and selection it carried are not repeated. */
export function questionOf(turnText: string): string {
  const marker = CONTEXT_MARKER.exec(turnText);
  return marker === null ? turnText : turnText.slice(0, marker.index);
}

/** Folds one event of a replay: its question is shown too. */
export function foldReplayedEvent(
  transcript: AskTranscript,
  event: SessionEvent,
): { transcript: AskTranscript; entries: TranscriptEntry[] } {
  return foldAskEvent(transcript, event, { replaying: true, readQuestion: questionOf });
}

/** A transcript from a session's logged events (`historyEvents` of session/attach). */
export function replayHistory(
  events: readonly { type: string }[],
  start: AskTranscript = emptyAskTranscript,
): { transcript: AskTranscript; entries: TranscriptEntry[] } {
  let transcript = start;
  const entries: TranscriptEntry[] = [];
  for (const event of events) {
    const folded = foldReplayedEvent(transcript, event as SessionEvent);
    transcript = folded.transcript;
    entries.push(...folded.entries);
  }
  return { transcript, entries };
}
