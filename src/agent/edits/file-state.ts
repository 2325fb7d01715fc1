// Reads what is on disk at a path right now (bytes, mode, hash) and decodes it as editable text,
// turning filesystem errors into errors the model or the user can act on.
import { SparkError } from "../../protocol/spark-error.ts";
import { EditError } from "./edit-error.ts";
import { sha256Of } from "./file-read-ledger.ts";
import { fileSystemError } from "./file-system-error.ts";
import { openWorkspaceFile } from "./open-workspace-file.ts";
import type { WorkspacePath } from "./resolve-workspace-path.ts";
import { decodeTextFile, type DecodedTextFile } from "./text-file-format.ts";

export type FileState =
  | { exists: false }
  | {
      exists: true;
      bytes: Buffer;
      /** Permission bits (mode & 0o7777). */
      mode: number;
      mtimeMs: number;
      size: number;
      sha256: string;
    };

export type ExistingFileState = Extract<FileState, { exists: true }>;

export { fileSystemError };

/**
 * What is on disk at `target` now, opened as read_file opens (openWorkspaceFile): no link and no
 * folder swapped for one can make it read a file outside. A hard-linked file may be read here:
 * an edit replaces its name by rename and never changes the other names' content.
 */
export async function readFileState(target: WorkspacePath): Promise<FileState> {
  const { relativePath } = target;
  const opened = await openWorkspaceFile(target, { hardLinks: "allow" });
  if (opened === undefined) return { exists: false };
  const { handle, stats } = opened;
  try {
    if (!stats.isFile()) {
      throw new EditError(
        "not_a_text_file",
        `${relativePath} is ${stats.isDirectory() ? "a directory" : "not a regular file"}; only files can be edited`,
        { path: relativePath },
      );
    }
    const bytes = await handle.readFile();
    return {
      exists: true,
      bytes,
      mode: stats.mode & 0o7777,
      mtimeMs: stats.mtimeMs,
      size: bytes.length,
      sha256: sha256Of(bytes),
    };
  } catch (error) {
    if (error instanceof SparkError) throw error;
    throw fileSystemError(error, "read", relativePath);
  } finally {
    await handle.close();
  }
}

export function stateSha256(state: FileState): string | null {
  return state.exists ? state.sha256 : null;
}

/** Decodes an existing file for editing, refusing binary or non-UTF-8 content. */
export function decodeExistingFile(
  state: ExistingFileState,
  relativePath: string,
): DecodedTextFile {
  const decoded = decodeTextFile(state.bytes);
  if (decoded === undefined) {
    throw new EditError(
      "not_a_text_file",
      `${relativePath} is not a UTF-8 text file; it cannot be edited with text edits`,
      { path: relativePath },
    );
  }
  return decoded;
}
