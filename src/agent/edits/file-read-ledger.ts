// What the model has seen: per file, the mtime, size and sha256 of the content it last read (or
// wrote). An edit to a file that changed on disk since then is refused as stale.
import { createHash } from "node:crypto";
import fs from "node:fs";
import { EditError } from "./edit-error.ts";
import { resolveWorkspacePath } from "./resolve-workspace-path.ts";

export interface FileReadRecord {
  mtimeMs: number;
  size: number;
  sha256: string;
}

export interface FileStats {
  mtimeMs: number;
  size: number;
}

export function sha256Of(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

export class FileReadLedger {
  private readonly records = new Map<string, FileReadRecord>();
  readonly workspaceRoot: string;

  constructor(options: { workspaceRoot: string }) {
    this.workspaceRoot = options.workspaceRoot;
  }

  /**
   * Called by the read_file tool with the file's full content as read from disk: bytes, or text
   * decoded as UTF-8 (hashed as UTF-8, which equals the bytes for any UTF-8 file). A partial read
   * must still pass the full content, or the next edit will look stale. `stats` defaults to a
   * fresh stat of the file.
   */
  recordRead(filePath: string, content: string | Uint8Array, stats?: FileStats): void {
    const resolved = resolveWorkspacePath(this.workspaceRoot, filePath);
    this.recordContent(resolved.absolutePath, content, stats ?? statOrZero(resolved.absolutePath));
  }

  /** Same as recordRead for an already resolved real path; edits call it after writing. */
  recordContent(absolutePath: string, content: string | Uint8Array, stats: FileStats): void {
    this.records.set(absolutePath, {
      mtimeMs: stats.mtimeMs,
      size: stats.size,
      sha256: sha256Of(content),
    });
  }

  forget(absolutePath: string): void {
    this.records.delete(absolutePath);
  }

  lookup(absolutePath: string): FileReadRecord | undefined {
    return this.records.get(absolutePath);
  }

  hasRead(absolutePath: string): boolean {
    return this.records.has(absolutePath);
  }

  /** Throws stale_file when the file was read earlier and its content has changed since. */
  assertFresh(absolutePath: string, relativePath: string, currentSha256: string | null): void {
    const record = this.records.get(absolutePath);
    if (record === undefined || record.sha256 === currentSha256) return;
    const what = currentSha256 === null ? "was deleted" : "changed on disk";
    throw new EditError(
      "stale_file",
      `${relativePath} ${what} since you read it; read it again before editing`,
      { path: relativePath },
    );
  }
}

function statOrZero(absolutePath: string): FileStats {
  try {
    const stats = fs.statSync(absolutePath);
    return { mtimeMs: stats.mtimeMs, size: stats.size };
  } catch {
    return { mtimeMs: 0, size: 0 };
  }
}
