// The terminal UI's picture of one session, as a type: what the reducer (session-view-state.ts)
// folds into and the helpers that edit its draft (answer lines, tool calls, rows) take, in a file
// of its own so that none of them imports the reducer that imports them.
import type { McpToolName, SessionStatus } from "../../protocol/agent/session-events.ts";
import type { TranscriptState } from "../../protocol/transcript/index.ts";
import type { StreamMetrics } from "./stream-metrics.ts";
import type { TranscriptItem } from "./transcript-item.ts";

export type { StreamMetrics } from "./stream-metrics.ts";

export interface PendingApproval {
  approvalId: string;
  command: string;
  cwd: string;
  /** Set for an MCP tool call: the prompt asks about a call, and "a" covers every call of it. */
  mcpTool?: McpToolName;
}

export interface EditRecord {
  path: string;
  editKind: "add" | "delete" | "update" | "move";
  unifiedDiff: string;
  linesAdded: number;
  linesRemoved: number;
  undoEntryId: string;
}

export interface SessionViewState {
  sessionId: string;
  model: string | undefined;
  status: SessionStatus;
  finished: TranscriptItem[];
  live: TranscriptItem | undefined;
  pendingApproval: PendingApproval | undefined;
  /** Edits applied and not undone, oldest first (what /diff shows). */
  edits: EditRecord[];
  metrics: StreamMetrics;
  /** Queued messages an interrupt dropped: the input box takes them back. */
  returnedInput: string | undefined;
  nextItemId: number;
  /** turn-started events seen: the message queue waits for its turn to have begun. */
  turnsStarted: number;
  /** The session's events folded by the fold every surface shares; the rows above show it. */
  transcript: TranscriptState;
  eventsFolded: number;
}
