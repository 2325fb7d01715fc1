// Opens a workspace file for reading so that no link carries the read outside: the last component
// is opened without following links, the real path of what was actually opened (read from the
// descriptor on Linux, so a folder swapped for a link meanwhile is caught) must be inside the
// workspace, and a regular file with other hard links is refused, since they cannot be told apart.
import fs, { constants, promises as fsp, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { descriptorPath, descriptorPathsAvailable } from "./descriptor-paths.ts";
import { EditError } from "./edit-error.ts";
import { fileSystemError } from "./file-system-error.ts";
import { isPathInside } from "./is-path-inside.ts";
import type { WorkspacePath } from "./resolve-workspace-path.ts";

/** O_NOFOLLOW: a link fails (ELOOP); O_NONBLOCK: a FIFO swapped in never blocks the open. */
export const READ_FLAGS =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export interface OpenedWorkspaceFile {
  handle: FileHandle;
  stats: Stats;
}

/**
 * The real path of what `descriptor` (opened from `openedPath`) is, or undefined when it cannot
 * be told. Without /proc/self/fd the path is resolved again, which a fast enough swap can race.
 */
export function openedRealPath(descriptor: number, openedPath: string): string | undefined {
  try {
    return descriptorPathsAvailable()
      ? fs.readlinkSync(descriptorPath(descriptor))
      : fs.realpathSync(openedPath);
  } catch {
    return undefined;
  }
}

/** The path to list an opened folder through: its descriptor on Linux, else its own path. */
export function listableDirectoryPath(descriptor: number, openedPath: string): string {
  return descriptorPathsAvailable() ? descriptorPath(descriptor) : openedPath;
}

export function hardLinkError(relativePath: string, links: number): EditError {
  return new EditError(
    "hard_linked_file",
    `${relativePath} has ${links} hard links; Spark cannot tell whether its other names are outside the workspace, so it does not read it — ask the user to copy it into the workspace (a copy has one link)`,
    { path: relativePath },
  );
}

function changedUnderneath(target: WorkspacePath, detail: string): EditError {
  return new EditError(
    "outside_workspace",
    `${target.relativePath} ${detail}; only files inside the workspace (${target.workspaceRoot}) can be read`,
    { path: target.relativePath },
  );
}

/** Checks an opened descriptor: inside the workspace, and (unless allowed) one hard link. */
function assertOpenedInside(
  descriptor: number,
  stats: Stats,
  target: WorkspacePath,
  hardLinks: "refuse" | "allow",
): void {
  const real = openedRealPath(descriptor, target.absolutePath);
  if (real === undefined || !isPathInside(target.workspaceRoot, real)) {
    throw changedUnderneath(target, "was moved or linked outside the workspace while being opened");
  }
  if (hardLinks === "refuse" && stats.isFile() && stats.nlink > 1)
    throw hardLinkError(target.relativePath, stats.nlink);
}

/**
 * The open file and its stats, or undefined when it does not exist; the caller closes it.
 * `hardLinks: "allow"` is for edits only, which replace the name and never show the whole file.
 */
export async function openWorkspaceFile(
  target: WorkspacePath,
  options: { hardLinks: "refuse" | "allow" } = { hardLinks: "refuse" },
): Promise<OpenedWorkspaceFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await fsp.open(target.absolutePath, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    if (code === "ELOOP") {
      throw changedUnderneath(target, "became a symbolic link after its path was checked");
    }
    throw fileSystemError(error, "read", target.relativePath);
  }
  try {
    const stats = await handle.stat();
    assertOpenedInside(handle.fd, stats, target, options.hardLinks);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
