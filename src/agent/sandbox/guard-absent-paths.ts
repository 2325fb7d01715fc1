// Protected paths that did not exist before a command (no mount can make a missing folder
// read-only) must not exist after it: whatever the command left there is removed, links
// unfollowed, and the command's output says so.
import { lstatSync, rmSync, statSync, unlinkSync } from "node:fs";
import path from "node:path";
import type { ProtectedPath } from "./protected-workspace-paths.ts";

interface PathState {
  /** Something is there, a dangling link included. */
  present: boolean;
  /** It resolves to a file or folder. */
  resolves: boolean;
}

export interface AbsentPathGuard {
  /** Removes what appeared; one note line per removal (empty when nothing appeared). */
  removeAppeared(): string[];
}

export function guardAbsentPaths(
  workspaceRoot: string,
  paths: readonly ProtectedPath[],
): AbsentPathGuard {
  const before = paths.map((entry) => ({ entry, state: stateOf(entry.path) }));
  return {
    removeAppeared() {
      const notes: string[] = [];
      for (const { entry, state } of before) {
        const now = stateOf(entry.path);
        // A dangling link the user had is theirs; one that now leads somewhere is not.
        const appeared = (now.present && !state.present) || (now.resolves && !state.resolves);
        if (!appeared) continue;
        const name = path.relative(workspaceRoot, entry.path);
        try {
          removeWithoutFollowing(entry.path);
          notes.push(
            `[removed ${name}: this command created it, and the agent's commands may not create ${entry.role}]`,
          );
        } catch (error) {
          notes.push(
            `[${name} was created by this command and could not be removed (${(error as Error).message}); remove it before running Spark or git here]`,
          );
        }
      }
      return notes;
    },
  };
}

function stateOf(candidate: string): PathState {
  let present = false;
  try {
    lstatSync(candidate);
    present = true;
    statSync(candidate);
    return { present, resolves: true };
  } catch {
    return { present, resolves: false };
  }
}

function removeWithoutFollowing(candidate: string): void {
  // A link is removed itself, never what it points at; rmSync does not follow links inside.
  if (lstatSync(candidate).isSymbolicLink()) unlinkSync(candidate);
  else rmSync(candidate, { recursive: true, force: true });
}
