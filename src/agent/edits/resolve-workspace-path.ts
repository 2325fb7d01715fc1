// Turns a path the model wrote into a real path inside the workspace, or refuses it: relative
// paths resolve against the root, symlinks are followed, and anything landing outside is an error.
// The one place the agent's file access is decided: writes also refuse protected paths (git's
// metadata, the hooks folder, .husky, .spark).
import fs from "node:fs";
import path from "node:path";
import { SparkError } from "../../protocol/spark-error.ts";
import { EditError } from "./edit-error.ts";
import { isPathInside } from "./is-path-inside.ts";
import { protectedPathReason } from "./protected-path.ts";

export interface WorkspacePath {
  /** Real absolute path (symlinks of existing ancestors resolved). */
  absolutePath: string;
  /** Relative to the real workspace root, with "/" separators; what messages and diffs show. */
  relativePath: string;
  /** Real path of the workspace root. */
  workspaceRoot: string;
}

function realWorkspaceRoot(workspaceRoot: string): string {
  try {
    return fs.realpathSync(workspaceRoot);
  } catch (error) {
    throw new SparkError("invalid_request", `The workspace root ${workspaceRoot} does not exist.`, {
      cause: error,
    });
  }
}

function outside(inputPath: string, root: string, detail: string): EditError {
  return new EditError(
    "outside_workspace",
    `${inputPath} ${detail}; only files inside the workspace (${root}) can be read or edited — use a path relative to it`,
    { path: inputPath },
  );
}

function exists(candidate: string): boolean {
  try {
    fs.lstatSync(candidate);
    return true;
  } catch {
    return false;
  }
}

/**
 * Synchronous on purpose: a handful of lstat/realpath calls, and the read-ledger needs the same
 * answer from a synchronous `recordRead`. Never throws anything but EditError/SparkError.
 */
export function resolveWorkspacePath(workspaceRoot: string, inputPath: string): WorkspacePath {
  const root = realWorkspaceRoot(workspaceRoot);
  if (inputPath.trim().length === 0 || inputPath.includes("\0")) {
    throw outside(JSON.stringify(inputPath), root, "is not a valid file path");
  }
  const lexical = path.resolve(workspaceRoot, inputPath);
  // Walk up to the deepest ancestor that exists; only it can be (or contain) a symlink.
  let existing = lexical;
  const missing: string[] = [];
  while (!exists(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missing.unshift(path.basename(existing));
    existing = parent;
  }
  let realExisting: string;
  try {
    realExisting = fs.realpathSync(existing);
  } catch {
    throw outside(inputPath, root, "is a symbolic link whose target cannot be resolved");
  }
  const absolutePath = path.join(realExisting, ...missing);
  const relative = path.relative(root, absolutePath);
  if (!isPathInside(root, absolutePath)) {
    const lexicallyInside = isPathInside(root, lexical);
    throw outside(
      inputPath,
      root,
      lexicallyInside
        ? `resolves through a symbolic link to ${absolutePath}, which is outside the workspace`
        : "is outside the workspace",
    );
  }
  return { absolutePath, relativePath: relative.split(path.sep).join("/"), workspaceRoot: root };
}

/**
 * resolveWorkspacePath for a file about to be created, changed, moved or deleted: also refuses
 * what runs code or picks settings later (protected-path.ts): git's metadata (`.git/hooks`,
 * `.git/config`, under any spelling, and the git directory a `.git` file points to), the
 * `core.hooksPath` folder, `.husky/` and `.spark/`. Symlinks are resolved first, so a link into
 * one of them is refused too.
 */
export function resolveWritablePath(workspaceRoot: string, inputPath: string): WorkspacePath {
  const resolved = resolveWorkspacePath(workspaceRoot, inputPath);
  const reason = protectedPathReason(resolved.absolutePath);
  if (reason !== undefined) {
    throw new EditError(
      "protected_path",
      `${inputPath} ${reason}; the agent never writes there — change files of the project instead, and tell the user if that setup needs changing`,
      { path: inputPath },
    );
  }
  return resolved;
}
