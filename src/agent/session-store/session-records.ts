// The lines of a session log: a header, every agent event as it happens, and the records resume
// and undo need (transcript messages, transcript rewrites, undo entries). One JSON object a line.
import type { UndoEntry } from "../edits/index.ts";
import type { AgentEvent } from "../agent-events.ts";
import type { TranscriptMessage } from "../transcript.ts";

export const SESSION_LOG_VERSION = 1;

export interface SessionHeader {
  type: "session";
  version: typeof SESSION_LOG_VERSION;
  id: string;
  startedAt: string;
  cwd: string;
  model?: string;
  /** Who owns the session on a server with API keys (a hash of the key, never the key itself).
   * Absent: the local user's (no key, the terminal UI, `spark exec`, and every older log). */
  tenant?: string;
}

export type SessionDataRecord =
  | SessionHeader
  /** A message appended to the transcript. */
  | { type: "message"; message: TranscriptMessage }
  /** The transcript after the context budget trimmed or compacted it. */
  | { type: "transcript-replaced"; messages: TranscriptMessage[] }
  /** What `spark undo` needs to put an edit back (the files' prior contents). */
  | { type: "undo-entry"; entry: UndoEntry };

export type SessionRecord = (SessionDataRecord | AgentEvent) & { at?: string };
