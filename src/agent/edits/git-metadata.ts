// Recognises repository metadata that git executes from (hooks, config, fsmonitor): any `.git`
// path segment, any git directory a `.git` file points to (worktrees, submodules), and any folder
// that already is a git directory (a separate or bare one).
import fs from "node:fs";
import path from "node:path";
import { isPathInside } from "./is-path-inside.ts";

/** Characters HFS+ and NTFS ignore or trim in names, which git itself refuses around ".git". */
const IGNORED_IN_NAMES = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g;

/**
 * A path segment as a case-insensitive or Windows file system matches it: ignorable characters
 * dropped, lower case, trailing dots and spaces trimmed (NTFS ignores them).
 */
export function normalizeSegment(segment: string): string {
  return segment
    .replace(IGNORED_IN_NAMES, "")
    .toLowerCase()
    .replace(/[. ]+$/, "");
}

/** `.git` under any spelling a case-insensitive or Windows file system treats as `.git`. */
export function isGitSegment(segment: string): boolean {
  const name = normalizeSegment(segment);
  return name === ".git" || name === "git~1";
}

export function readIfFile(file: string): string | undefined {
  try {
    if (!fs.lstatSync(file).isFile()) return undefined;
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function isKind(candidate: string, kind: "file" | "directory"): boolean {
  try {
    const stats = fs.statSync(candidate);
    return kind === "file" ? stats.isFile() : stats.isDirectory();
  } catch {
    return false;
  }
}

/** Git's own test (setup.c is_git_directory): HEAD, refs/, and objects/ or a commondir file. */
export function isGitDirectory(directory: string): boolean {
  return (
    isKind(path.join(directory, "HEAD"), "file") &&
    isKind(path.join(directory, "refs"), "directory") &&
    (isKind(path.join(directory, "objects"), "directory") ||
      isKind(path.join(directory, "commondir"), "file"))
  );
}

export function realOrSelf(candidate: string): string {
  try {
    return fs.realpathSync(candidate);
  } catch {
    return candidate;
  }
}

/**
 * Git directories named by a `.git` FILE (`gitdir: <path>`) in `directory`, plus the common
 * directory a worktree's git directory names in its `commondir` file.
 */
export function gitDirectoriesLinkedFrom(directory: string): string[] {
  const text = readIfFile(path.join(directory, ".git"));
  const match = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (match?.[1] === undefined) return [];
  const gitDirectory = realOrSelf(path.resolve(directory, match[1]));
  const common = readIfFile(path.join(gitDirectory, "commondir"))?.trim();
  return common === undefined || common === ""
    ? [gitDirectory]
    : [gitDirectory, realOrSelf(path.resolve(gitDirectory, common))];
}

/**
 * Why writing `absolutePath` (a real path, symlinks of existing ancestors resolved) would change
 * what git executes, or undefined when it would not. Checks every segment of the path, and every
 * folder above it: whether it is a git directory, and where a `.git` file in it points.
 */
export function gitMetadataReason(absolutePath: string): string | undefined {
  const segments = absolutePath.split(path.sep).filter((segment) => segment !== "");
  if (segments.some(isGitSegment)) return "is inside the repository's .git metadata";
  for (let directory = path.dirname(absolutePath); ; directory = path.dirname(directory)) {
    if (isGitDirectory(directory)) return `is inside the git directory ${directory}`;
    for (const gitDirectory of gitDirectoriesLinkedFrom(directory)) {
      if (isPathInside(gitDirectory, absolutePath)) {
        return `is inside the git directory that ${path.join(directory, ".git")} points to`;
      }
    }
    if (path.dirname(directory) === directory) return undefined;
  }
}
