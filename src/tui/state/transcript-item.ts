// What the transcript shows: finished items (rendered once, in Ink's <Static>) and the one live item.
import type { SparkErrorJson } from "../../protocol/spark-error.ts";

export type TranscriptItem =
  | { kind: "user"; id: number; text: string; via?: "steer" | "queue" }
  | {
      kind: "assistant";
      id: number;
      text: string;
      /** A later piece of one answer: a long answer is moved to the static area line by line. */
      continued: boolean;
      interrupted: boolean;
    }
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
      commandOutcome?: { status: string; tail: string[] };
    }
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
  | { kind: "history"; id: number; role: "user" | "assistant" | "tool"; text: string };

export type TranscriptItemKind = TranscriptItem["kind"];

/** Distributes Omit over the union so each variant keeps its own fields. */
export type NewTranscriptItem = TranscriptItem extends infer Item
  ? Item extends TranscriptItem
    ? Omit<Item, "id">
    : never
  : never;

export function errorItemFields(error: SparkErrorJson): { message: string; code?: string } {
  return { message: error.message, code: error.code };
}
