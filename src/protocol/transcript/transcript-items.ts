// What a session's transcript holds once its events are folded: items every surface shows (the
// browser as keyed rows, the editor's webview as entries, the terminal as rows written once), and
// the changes one event made, for a surface that draws only what is new.
import type { ApprovalDecision, McpToolName, SessionStatus } from "../agent/index.ts";

/** A sent message in its parts: what was typed, the workspace files it names, its uploads. */
export interface MessageParts {
  text: string;
  files: readonly string[];
  uploads: readonly { name: string; text: string }[];
}

/** What a notice is about, so a surface may say it its own way (the terminal's undo shows diffs). */
export type NoticeTopic =
  "sandbox" | "undone" | "interrupted" | "turn-ended" | "error" | "approval" | "compacted";

export type TranscriptItem =
  | {
      kind: "user";
      id: string;
      /** What the user typed; named files and uploads are apart (a surface may show them as chips). */
      text: string;
      via?: "steer" | "queue";
      files?: readonly string[];
      uploads?: MessageParts["uploads"];
    }
  | { kind: "assistant"; id: string; text: string; streaming: boolean; interrupted: boolean }
  | {
      kind: "tool";
      id: string;
      callId: string;
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
      callId: string;
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
      /** Set when the question is a call of an MCP tool: "always" covers every call of it. */
      mcpTool?: McpToolName;
      decision?: ApprovalDecision | "cancelled";
    }
  | {
      kind: "notice";
      id: string;
      text: string;
      tone: "info" | "error";
      about: NoticeTopic;
      /** An error's code, where the server gave one. */
      code?: string;
    };

export type TranscriptItemOf<Kind extends TranscriptItem["kind"]> = Extract<
  TranscriptItem,
  { kind: Kind }
>;

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

/** One event's effect on the items: a new one, or a new value of one already there. */
export type TranscriptChange =
  | { type: "added"; item: TranscriptItem }
  | {
      type: "changed";
      item: TranscriptItem;
      previous: TranscriptItem;
      /**
       * Text added to the end of an answer: a surface that draws the answer as it grows takes it
       * from here rather than slicing the whole text (which copies it, every delta).
       */
      appended?: string;
    };

/** How a sent message splits into its parts: a surface that composes messages reads them back. */
export type ReadMessage = (message: string) => MessageParts;

export const plainMessage: ReadMessage = (message) => ({ text: message, files: [], uploads: [] });
