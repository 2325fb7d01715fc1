// What an applied edit returns to the agent's tools: per file, what happened, the unified diff,
// line counts and the matching rung, plus the undo entry that can take it back.
import type { FileDiff } from "./file-diff.ts";
import type { MatchRung } from "./normalize-text.ts";

export type FileChangeKind = "add" | "delete" | "update" | "move";

export interface FileChange extends FileDiff {
  /** Workspace-relative path (the destination, for a move). */
  path: string;
  kind: FileChangeKind;
  movedFrom?: string;
  /** For updates: the rung each hunk or replacement matched at. */
  rungs: MatchRung[];
}

export interface ApplyPatchResult {
  files: FileChange[];
  linesAdded: number;
  linesRemoved: number;
  undoEntryId: string;
}

export interface SearchReplaceResult extends FileDiff {
  path: string;
  kind: "add" | "update";
  /** The rung that matched ("exact" when the file was created). */
  rung: MatchRung;
  replacements: number;
  /** 1-based lines where each replaced occurrence started. */
  matchedLines: number[];
  undoEntryId: string;
}
