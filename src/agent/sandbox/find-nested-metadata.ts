// Every `.git` and `.spark` below the workspace, at any depth: what git and Spark run or obey
// later, outside the sandbox (a nested repository's config is run by the next `git status` in it,
// a nested `.spark/config.toml` configures the next session started there). Found by walking the
// tree without following links, so it stays within the workspace and is fast enough to run
// before and after every command (see the measurements in the sandbox's docs).
import { lstatSync, readdirSync, readFileSync, type Dirent } from "node:fs";
import path from "node:path";

/** The names whose every occurrence a command may neither create nor change. */
export const NESTED_METADATA_NAMES: ReadonlySet<string> = new Set([".git", ".spark"]);

/** What a `.git` file may hold (a submodule's or worktree's `gitdir: …` line): it is restored. */
const MAX_RESTORED_FILE_BYTES = 64 * 1024;

export interface NestedMetadata {
  /** Absolute path (the workspace's real path joined with the relative one). */
  path: string;
  kind: "directory" | "file" | "link" | "other";
  /** Identity, so a replacement at the same path is told from the original. */
  device: number;
  inode: number;
  /** A small file's bytes (a `.git` file), to write back when a command replaced it. */
  content?: Buffer;
}

/**
 * Walks `workspaceRoot` and returns every entry named `.git` or `.spark`, without descending into
 * them (their insides are covered by the read-only bind of the entry itself). node_modules is
 * walked too: `git -C node_modules/pkg` and editors that scan for repositories run a `.git` there.
 */
export function findNestedMetadata(workspaceRoot: string): NestedMetadata[] {
  const found: NestedMetadata[] = [];
  const pending: string[] = [workspaceRoot];
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      // Unreadable or gone: nothing a command could have planted there is readable by git either.
      continue;
    }
    for (const entry of entries) {
      const child = path.join(directory, entry.name);
      if (NESTED_METADATA_NAMES.has(entry.name)) {
        const metadata = describeEntry(child);
        if (metadata !== undefined) found.push(metadata);
      } else if (entry.isDirectory()) {
        pending.push(child);
      }
    }
  }
  return found.sort((left, right) => left.path.localeCompare(right.path));
}

export function describeEntry(candidate: string): NestedMetadata | undefined {
  try {
    const stats = lstatSync(candidate);
    const kind = stats.isSymbolicLink()
      ? "link"
      : stats.isDirectory()
        ? "directory"
        : stats.isFile()
          ? "file"
          : "other";
    const metadata: NestedMetadata = {
      path: candidate,
      kind,
      device: stats.dev,
      inode: stats.ino,
    };
    if (kind === "file" && stats.size <= MAX_RESTORED_FILE_BYTES)
      metadata.content = readFileSync(candidate);
    return metadata;
  } catch {
    return undefined;
  }
}
