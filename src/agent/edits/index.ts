// Public surface of the edit engine: the apply_patch and edit (search/replace) operations, the
// read-ledger and undo stack a session owns, path resolution, and the typed error.
export { applyPatch, type ApplyPatchRequest } from "./apply-patch.ts";
export { applySearchReplace, type SearchReplaceRequest } from "./apply-search-replace.ts";
export { parsePatch } from "./parse-patch.ts";
export type { ParsedPatch, PatchLine, PatchOperation, UpdateChunk } from "./patch-types.ts";
export { FileReadLedger, type FileReadRecord, type FileStats } from "./file-read-ledger.ts";
export {
  UndoStack,
  type UndoOptions,
  type UndoResult,
  type UndoneFile,
  type UndoStackJson,
} from "./undo-stack.ts";
export type { UndoEntry, UndoFile } from "./undo-entry.ts";
export { isPathInside } from "./is-path-inside.ts";
export {
  hardLinkError,
  listableDirectoryPath,
  openedRealPath,
  openWorkspaceFile,
  READ_FLAGS,
  type OpenedWorkspaceFile,
} from "./open-workspace-file.ts";
export {
  resolveWorkspacePath,
  resolveWritablePath,
  type WorkspacePath,
} from "./resolve-workspace-path.ts";
export { EditError, type EditErrorCode, type EditErrorJson } from "./edit-error.ts";
export type {
  ApplyPatchResult,
  FileChange,
  FileChangeKind,
  SearchReplaceResult,
} from "./edit-result.ts";
export type { FileDiff } from "./file-diff.ts";
export { MATCH_RUNGS, type MatchRung } from "./normalize-text.ts";
export { removeStaleTempFiles, writeFileAtomic } from "./write-file-atomic.ts";
export { removeTempFilesOfDeadWriters } from "./temp-file-journal.ts";
