// The workspace paths a command must not change, found before each command without running git:
// whatever runs later outside the sandbox reads them (git's hooks and config, husky's hooks,
// Spark's project settings). Those that exist are bound read-only; those that do not must not
// appear (see guard-absent-paths.ts).
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { repositoriesHolding } from "../edits/repository-hooks.ts";

export interface ProtectedPath {
  /** Absolute path as the command sees it. */
  path: string;
  /** Why a command may not write there, for the note when one appeared. */
  role: string;
}

export interface ProtectedPaths {
  /** Real paths of those that exist, in mount order (bound where a mount is needed). */
  readOnly: string[];
  /** Inside the workspace and absent now: a command that creates one has it removed. */
  absent: ProtectedPath[];
}

export function findProtectedPaths(workspaceRoot: string): ProtectedPaths {
  const candidates: ProtectedPath[] = [
    { path: path.join(workspaceRoot, ".git"), role: "the repository's git folder" },
    { path: path.join(workspaceRoot, ".husky"), role: "husky's git hooks" },
    { path: path.join(workspaceRoot, ".spark"), role: "Spark's project settings" },
  ];
  // The edit tools' own reader (repository-hooks.ts), so a command and an edit are kept out of
  // the same folders: a worktree's or submodule's `.git` file points at its git dir, hooks and
  // config live in the common dir, and core.hooksPath (in any included config file too) can
  // name any folder, also one of an outer repository's.
  for (const repository of repositoriesHolding(workspaceRoot)) {
    for (const gitDirectory of repository.gitDirectories)
      candidates.push({ path: gitDirectory, role: "the repository's git folder" });
    for (const hooks of repository.hooksFolders)
      candidates.push({
        path: hooks.folder,
        role: "the repository's hooks folder (core.hooksPath)",
      });
  }
  const readOnly: string[] = [];
  const absent: ProtectedPath[] = [];
  for (const candidate of candidates) {
    const real = realPathOrUndefined(candidate.path);
    if (real !== undefined) {
      // sandbox-mounts.ts binds those the workspace or a hidden folder (/tmp, a home) holds.
      if (!readOnly.includes(real)) readOnly.push(real);
    } else if (
      isInside(workspaceRoot, candidate.path) &&
      !absent.some((known) => known.path === candidate.path)
    ) {
      absent.push(candidate);
    }
  }
  // A path inside a read-only one is covered already (e.g. the default .git/hooks).
  return {
    readOnly,
    absent: absent.filter((entry) => !readOnly.some((mount) => isInside(mount, entry.path))),
  };
}

function realPathOrUndefined(candidate: string): string | undefined {
  if (candidate === "" || !existsSync(candidate)) return undefined;
  try {
    return realpathSync(candidate);
  } catch {
    return undefined;
  }
}

export function isInside(directory: string, candidate: string): boolean {
  const relative = path.relative(directory, candidate);
  const outside = relative === ".." || relative.startsWith(`..${path.sep}`);
  return relative === "" || (!outside && !path.isAbsolute(relative));
}
