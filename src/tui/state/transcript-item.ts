// What the transcript shows: finished items (rendered once, in Ink's <Static>) and the one live item.

export type TranscriptItem =
  | { kind: "user"; id: number; text: string; via?: "steer" | "queue" }
  | AssistantLine
  | {
      kind: "tool-call";
      id: number;
      callId: string;
      name: string;
      summary: string;
      status: "running" | "done" | "failed";
      durationMs?: number;
      /** The first line of a failed tool's output, so the reason is visible. */
      errorLine?: string;
      /** A command's outcome line ("exit code 0", "killed: …") and its last lines of output. */
      commandOutcome?: {
        status: string;
        tail: string[];
        /** Every line of its output, for Ctrl+T and /output (the tail hides the rest). */
        lines: string[];
      };
    }
  /** A command's whole output, shown on request (Ctrl+T, /output). */
  | { kind: "command-output"; id: number; summary: string; lines: string[] }
  | {
      kind: "edit";
      id: number;
      path: string;
      editKind: "add" | "delete" | "update" | "move";
      movedFrom?: string;
      unifiedDiff: string;
      linesAdded: number;
      linesRemoved: number;
    }
  | {
      kind: "undo";
      id: number;
      files: { path: string; action: "restored" | "deleted"; unifiedDiff: string }[];
    }
  | { kind: "interrupted"; id: number; reason: "interrupt" | "steer" }
  | { kind: "error"; id: number; message: string; code?: string }
  | { kind: "notice"; id: number; text: string; tone: "info" | "warning" }
  /** What a session opens with: where it works, its model, and how this UI came to it. */
  | {
      kind: "session-header";
      id: number;
      sessionId: string;
      cwd: string;
      model?: string;
      how: "new" | "resumed" | "joined";
    }
  | { kind: "history"; id: number; role: "user" | "assistant" | "tool"; text: string };

/** One line of an answer: answers move to the static area a logical line at a time. */
export interface AssistantLine {
  kind: "assistant";
  id: number;
  text: string;
  /** A later line of one answer (only the first is marked "● "). */
  continued: boolean;
  interrupted: boolean;
  /**
   * The line's place in the answer's Markdown: prose, a line of a fenced code block, a fence (not
   * shown), or a whole table (its lines, finished together so its columns line up). For the live
   * line: whether it is inside a code block so far.
   */
  block: "prose" | "code" | "fence" | "table";
  /** In a code block (or at its opening fence): its language and fence, which closes it. */
  code?: { language: string; fence: string };
  /** The rest of a logical line too long to stay live (not a line of its own). */
  restOfLine?: boolean;
  /** Empty lines of the answer just above this one, drawn as its top margin. */
  blankLinesBefore?: number;
  /** On the live line: the table rows just above it, held until a line that is no row ends them. */
  heldTable?: AssistantLine;
}

export type TranscriptItemKind = TranscriptItem["kind"];

/** Distributes Omit over the union so each variant keeps its own fields. */
export type NewTranscriptItem = TranscriptItem extends infer Item
  ? Item extends TranscriptItem
    ? Omit<Item, "id">
    : never
  : never;
