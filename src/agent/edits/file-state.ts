// Reads what is on disk at a path right now (bytes, mode, hash) and decodes it as editable text,
// turning filesystem errors into errors the model or the user can act on.
import { promises as fsp } from "node:fs";
import { SparkError } from "../../protocol/spark-error.ts";
import { EditError } from "./edit-error.ts";
import { sha256Of } from "./file-read-ledger.ts";
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

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Wraps an unexpected filesystem error (permissions, disk full) as a SparkError. */
export function fileSystemError(error: unknown, action: string, relativePath: string): SparkError {
  const code = errorCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
    return new SparkError("permission_denied", `Cannot ${action} ${relativePath}: ${reason}`, {
      cause: error,
    });
  }
  return new SparkError("internal_error", `Could not ${action} ${relativePath}: ${reason}`, {
    cause: error,
  });
}

export async function readFileState(
  absolutePath: string,
  relativePath: string,
): Promise<FileState> {
  try {
    const stats = await fsp.stat(absolutePath);
    if (!stats.isFile()) {
      throw new EditError(
        "not_a_text_file",
        `${relativePath} is ${stats.isDirectory() ? "a directory" : "not a regular file"}; only files can be edited`,
        { path: relativePath },
      );
    }
    const bytes = await fsp.readFile(absolutePath);
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
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { exists: false };
    throw fileSystemError(error, "read", relativePath);
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
