// `.git` and `.spark` at any depth after a command: those it created are removed (links
// unfollowed), and those it moved or replaced are put back, since git and Spark obey them later
// outside the sandbox. The existing ones were bound read-only, so they cannot be changed in place,
// only moved along with a folder above them (`mv sub elsewhere && git init sub`).
import {
  mkdirSync,
  renameSync,
  rmSync,
  lstatSync,
  readlinkSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { findNestedMetadata, type NestedMetadata } from "./find-nested-metadata.ts";

export interface NestedMetadataGuard {
  /** Real paths to bind read-only for the command: every `.git` and `.spark` found before it. */
  readOnly: string[];
  /** Undoes what the command did to them; one note line per change (empty when none). */
  undoChanges(): string[];
}

interface Snapshot extends NestedMetadata {
  linkTarget?: string;
}

export function guardNestedMetadata(workspaceRoot: string): NestedMetadataGuard {
  const before = findNestedMetadata(workspaceRoot).map(withLinkTarget);
  return {
    readOnly: before
      .filter((entry) => entry.kind === "directory" || entry.kind === "file")
      .map((entry) => entry.path),
    undoChanges: () => undoChanges(workspaceRoot, before),
  };
}

function undoChanges(workspaceRoot: string, before: readonly Snapshot[]): string[] {
  const after = findNestedMetadata(workspaceRoot).map(withLinkTarget);
  const name = (candidate: string): string => path.relative(workspaceRoot, candidate);
  const notes: string[] = [];
  const atPath = (entry: NestedMetadata): Snapshot | undefined =>
    after.find((candidate) => candidate.path === entry.path);
  const stayed = (original: NestedMetadata): boolean => {
    const now = atPath(original);
    return now !== undefined && sameIdentity(now, original);
  };
  // Originals the command moved away with a folder above them (same file, new path).
  const moved = new Map<Snapshot, NestedMetadata>();
  for (const original of before.filter((entry) => !stayed(entry))) {
    const elsewhere = after.find((entry) => sameIdentity(entry, original));
    if (elsewhere !== undefined) moved.set(original, elsewhere);
  }
  const movedPaths = new Set([...moved.values()].map((entry) => entry.path));
  for (const entry of after) {
    const original = before.find((known) => known.path === entry.path);
    if (original !== undefined && sameIdentity(original, entry)) continue;
    if (movedPaths.has(entry.path)) continue;
    try {
      removeWithoutFollowing(entry.path);
      notes.push(
        `[removed ${name(entry.path)}: this command created it, and the agent's commands may not create ${roleOf(entry.path)}]`,
      );
    } catch (error) {
      notes.push(
        `[${name(entry.path)} was created by this command and could not be removed (${(error as Error).message}); remove it before running git or Spark there]`,
      );
    }
  }
  for (const original of before.filter((entry) => !stayed(entry))) {
    const now = moved.get(original);
    try {
      restore(original, now);
      notes.push(
        `[put ${name(original.path)} back: this command ${now === undefined ? "removed" : `moved it to ${name(now.path)}`}, and the agent's commands may not move or replace ${roleOf(original.path)}]`,
      );
    } catch (error) {
      notes.push(
        `[${name(original.path)} was moved or replaced by this command and could not be put back (${(error as Error).message}); check it before running git or Spark there]`,
      );
    }
  }
  return notes;
}

function restore(original: Snapshot, movedTo: NestedMetadata | undefined): void {
  mkdirSync(path.dirname(original.path), { recursive: true });
  if (present(original.path)) removeWithoutFollowing(original.path);
  if (movedTo !== undefined) renameSync(movedTo.path, original.path);
  else if (original.kind === "link" && original.linkTarget !== undefined)
    symlinkSync(original.linkTarget, original.path);
  else if (original.kind === "file" && original.content !== undefined)
    writeFileSync(original.path, original.content);
  else throw new Error("its contents are gone");
}

function roleOf(candidate: string): string {
  return path.basename(candidate) === ".spark"
    ? "Spark's project settings"
    : "a git folder (git runs its config and hooks later, outside the sandbox)";
}

function withLinkTarget(entry: NestedMetadata): Snapshot {
  if (entry.kind !== "link") return entry;
  try {
    return { ...entry, linkTarget: readlinkSync(entry.path) };
  } catch {
    return entry;
  }
}

/**
 * The same entry, unchanged: the same inode (a moved one keeps it) and, since a freed inode number
 * can be given at once to the link or file a command makes in its place, the same link target and
 * the same small file's bytes.
 */
function sameIdentity(left: Snapshot, right: Snapshot): boolean {
  return (
    left.device === right.device &&
    left.inode === right.inode &&
    left.kind === right.kind &&
    left.linkTarget === right.linkTarget &&
    (left.content === undefined) === (right.content === undefined) &&
    (left.content === undefined ||
      right.content === undefined ||
      left.content.equals(right.content))
  );
}

function present(candidate: string): boolean {
  try {
    lstatSync(candidate);
    return true;
  } catch {
    return false;
  }
}

function removeWithoutFollowing(candidate: string): void {
  // A link is removed itself, never what it points at; rmSync does not follow links inside.
  if (lstatSync(candidate).isSymbolicLink()) unlinkSync(candidate);
  else rmSync(candidate, { recursive: true, force: true });
}
