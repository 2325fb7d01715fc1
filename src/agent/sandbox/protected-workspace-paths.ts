// The workspace paths a command must not change, found before each command: whatever runs later
// outside the sandbox reads them (git's hooks and config, husky's hooks, Spark's project
// settings). Those that exist are bound read-only; those that do not must not appear (see
// guard-absent-paths.ts).
import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { commandEnvironment } from "./command-environment.ts";

/** Git's answer comes from local files; a repository that takes longer is not waited for. */
const GIT_TIMEOUT_MS = 5_000;

export interface ProtectedPath {
  /** Absolute path as the command sees it. */
  path: string;
  /** Why a command may not write there, for the note when one appeared. */
  role: string;
}

export interface ProtectedPaths {
  /** Real paths to bind read-only, in mount order. */
  readOnly: string[];
  /** Inside the workspace and absent now: a command that creates one has it removed. */
  absent: ProtectedPath[];
}

export async function findProtectedPaths(
  workspaceRoot: string,
  signal: AbortSignal,
): Promise<ProtectedPaths> {
  const candidates: ProtectedPath[] = [
    { path: path.join(workspaceRoot, ".git"), role: "the repository's git folder" },
    { path: path.join(workspaceRoot, ".husky"), role: "husky's git hooks" },
    { path: path.join(workspaceRoot, ".spark"), role: "Spark's project settings" },
  ];
  const git = await askGit(workspaceRoot, signal);
  if (git !== undefined) {
    // A worktree's or submodule's `.git` file points at its git dir; hooks and config live in the
    // common dir; core.hooksPath can name any folder.
    candidates.push(
      { path: git.gitDirectory, role: "the repository's git folder" },
      { path: git.commonDirectory, role: "the repository's git folder" },
      { path: git.hooksDirectory, role: "the repository's hooks folder (core.hooksPath)" },
    );
  }
  const readOnly: string[] = [];
  const absent: ProtectedPath[] = [];
  for (const candidate of candidates) {
    const real = realPathOrUndefined(candidate.path);
    if (real !== undefined) {
      // Elsewhere the read-only root covers it; under /tmp the private /tmp would hide it.
      const needsMount = isInside(workspaceRoot, real) || isInside("/tmp", real);
      if (needsMount && !readOnly.includes(real)) readOnly.push(real);
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

interface GitPaths {
  gitDirectory: string;
  commonDirectory: string;
  hooksDirectory: string;
}

/** Undefined when the workspace is not in a repository, git is missing or too old (< 2.31). */
function askGit(workspaceRoot: string, signal: AbortSignal): Promise<GitPaths | undefined> {
  return new Promise((resolve) => {
    execFile(
      "git",
      [
        "rev-parse",
        "--path-format=absolute",
        "--git-dir",
        "--git-common-dir",
        "--git-path",
        "hooks",
      ],
      {
        cwd: workspaceRoot,
        // Not GIT_DIR or GIT_CONFIG_* from Spark's environment: the repository's own answer.
        env: commandEnvironment(process.env),
        timeout: GIT_TIMEOUT_MS,
        signal,
        encoding: "utf8",
      },
      (error, stdout) => {
        const [gitDirectory, commonDirectory, hooksDirectory] = stdout.split("\n");
        if (error !== null || hooksDirectory === undefined || hooksDirectory === "") {
          resolve(undefined);
          return;
        }
        resolve({
          gitDirectory: gitDirectory ?? "",
          commonDirectory: commonDirectory ?? "",
          hooksDirectory,
        });
      },
    );
  });
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
