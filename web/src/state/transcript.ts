// One session's conversation as the page shows it: the shared fold of session events
// (src/protocol/transcript), with a sent message read back into its parts (text, files, uploads)
// so the row shows them as chips.
import {
  foldSessionEvent,
  transcriptFromHistory as historyTranscript,
  type ReadMessage,
  type TranscriptState,
} from "../../../src/protocol/transcript/index.ts";
import type { HistoryItem, SessionEvent } from "../../../src/protocol/agent/index.ts";
import { parseComposedMessage } from "./attachments.ts";

export {
  emptyTranscript,
  latestUndoableEdit,
  pendingApproval,
  undoStepsTo,
  type ReadMessage,
  type TranscriptItem,
  type TranscriptState,
} from "../../../src/protocol/transcript/index.ts";

export function transcriptFromHistory(
  history: readonly HistoryItem[],
  readMessage: ReadMessage = parseComposedMessage,
): TranscriptState {
  return historyTranscript(history, readMessage);
}

/** Folds one event into the transcript; `sequence` makes ids unique across turns. */
export function applySessionEvent(
  state: TranscriptState,
  event: SessionEvent,
  sequence: number,
  readMessage: ReadMessage = parseComposedMessage,
): TranscriptState {
  return foldSessionEvent(state, event, sequence, readMessage);
}
