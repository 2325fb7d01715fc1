// What the Ask Spark view shows for a session it attaches to after a window reload: the events the
// server replays (or the history it read back from the session's log) folded as live events are,
// plus the user's questions, which live the page echoes itself and the server only names in
// turn-started.
import type { SessionEvent } from "../../../../src/protocol/agent/index.ts";
import { transcriptEntryFor, type TranscriptEntry } from "./ask-transcript.ts";

/** What questionWithContext puts between the question and the editor context it carries. */
const CONTEXT_MARKER = /\n\n\((Active file|Attached): /;

export function replayedEntryFor(event: SessionEvent): TranscriptEntry | undefined {
  if (event.type === "turn-started") return { kind: "user", text: questionOf(event.text) };
  return transcriptEntryFor(event);
}

/** The question as the user typed it: the file and selection it carried are not repeated. */
export function questionOf(turnText: string): string {
  const marker = CONTEXT_MARKER.exec(turnText);
  return marker === null ? turnText : turnText.slice(0, marker.index);
}

/** A transcript from a session's logged events (`historyEvents` of session/attach). */
export function replayHistory(events: readonly { type: string }[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  for (const event of events) {
    const entry = replayedEntryFor(event as SessionEvent);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}
