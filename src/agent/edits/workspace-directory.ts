// Opens the folder a write goes into without following a link at any component, so a process
// that swaps a folder for a symlink between the path check and the write cannot carry the write
// outside the workspace. On Linux this is openat() emulated through /proc/self/fd: every later
// create, rename and delete names the folder by its descriptor, never by its path. Elsewhere the
// folder is named by path and its real path is checked again after each write (best effort).
import fs, { constants, promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { descriptorPath, descriptorPathsAvailable } from "./descriptor-paths.ts";
import { EditError } from "./edit-error.ts";
import { isPathInside } from "./is-path-inside.ts";

export interface WorkspaceDirectory {
  /** The folder's real absolute path when it was opened: for messages, the temp journal, hooks. */
  readonly absolutePath: string;
  /** The path file-system calls use to reach the folder (`/proc/self/fd/<n>` on Linux). */
  readonly accessPath: string;
  /** The path file-system calls use for `name` inside the folder; `name` is one component. */
  entry(name: string): string;
  /** Throws outside_workspace when the folder's real path is no longer inside the workspace. */
  assertInside(): void;
  /** Makes renames and deletes in the folder durable (best effort). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

const DIRECTORY_FLAGS =
  constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function outsideError(relativePath: string, workspaceRoot: string, detail: string): EditError {
  return new EditError(
    "outside_workspace",
    `${relativePath} ${detail}; nothing was written there — only files inside the workspace (${workspaceRoot}) can be edited, so check the path and try again`,
    { path: relativePath },
  );
}

/**
 * The folder `relativeDirectory` ("" for the root; "/"-separated, link-free as the resolver
 * returned it) of the real workspace root, or undefined when it does not exist and `create` is
 * false. Missing folders are created when `create` is true. Throws outside_workspace when a
 * component is (or became) a symbolic link.
 */
export function openWorkspaceDirectory(
  workspaceRoot: string,
  relativeDirectory: string,
  options: { create: true },
): Promise<WorkspaceDirectory>;
export function openWorkspaceDirectory(
  workspaceRoot: string,
  relativeDirectory: string,
  options: { create: boolean },
): Promise<WorkspaceDirectory | undefined>;
export async function openWorkspaceDirectory(
  workspaceRoot: string,
  relativeDirectory: string,
  options: { create: boolean },
): Promise<WorkspaceDirectory | undefined> {
  return descriptorPathsAvailable()
    ? openThroughDescriptors(workspaceRoot, relativeDirectory, options)
    : openByPath(workspaceRoot, relativeDirectory, options);
}

function components(relativeDirectory: string): string[] {
  return relativeDirectory.split("/").filter((part) => part !== "" && part !== ".");
}

/** Linux: each component opened relative to its parent's descriptor with O_NOFOLLOW. */
export async function openThroughDescriptors(
  workspaceRoot: string,
  relativeDirectory: string,
  options: { create: boolean },
): Promise<WorkspaceDirectory | undefined> {
  let current: FileHandle = await fsp.open(workspaceRoot, DIRECTORY_FLAGS);
  let walked = "";
  try {
    for (const component of components(relativeDirectory)) {
      walked = walked === "" ? component : `${walked}/${component}`;
      const entry = `${descriptorPath(current.fd)}/${component}`;
      let next = await openComponent(entry, workspaceRoot, walked);
      if (next === undefined) {
        if (!options.create) {
          await current.close();
          return undefined;
        }
        // mkdir never follows a link in its last component (an existing link is EEXIST).
        await fsp.mkdir(entry).catch((error: unknown) => {
          if (errorCode(error) !== "EEXIST") throw error;
        });
        next = await openComponent(entry, workspaceRoot, walked);
        if (next === undefined)
          throw outsideError(walked, workspaceRoot, "vanished while it was being created");
      }
      await current.close();
      current = next;
    }
  } catch (error) {
    await current.close();
    throw error;
  }
  return descriptorDirectory(
    current,
    path.join(workspaceRoot, ...components(relativeDirectory)),
    workspaceRoot,
  );
}

/** The opened folder, undefined when missing; a link (or a file) in its place is refused. */
async function openComponent(
  entry: string,
  workspaceRoot: string,
  walked: string,
): Promise<FileHandle | undefined> {
  try {
    return await fsp.open(entry, DIRECTORY_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP" || code === "ENOTDIR") {
      const isLink = await fsp
        .lstat(entry)
        .then((stats) => stats.isSymbolicLink())
        .catch(() => false);
      if (isLink) {
        throw outsideError(
          walked,
          workspaceRoot,
          "became a symbolic link after its path was checked",
        );
      }
    }
    throw error;
  }
}

function descriptorDirectory(
  handle: FileHandle,
  absolutePath: string,
  workspaceRoot: string,
): WorkspaceDirectory {
  const accessPath = descriptorPath(handle.fd);
  return {
    absolutePath,
    accessPath,
    entry: (name) => `${accessPath}/${name}`,
    assertInside: () => {
      // The walk proved the folder was inside when opened; this catches it being moved out since.
      const real = readLinkOrUndefined(accessPath);
      if (real === undefined || !isPathInside(workspaceRoot, real)) {
        throw outsideError(
          path.relative(workspaceRoot, absolutePath) || ".",
          workspaceRoot,
          "was moved out of the workspace while it was being written",
        );
      }
    },
    sync: async () => {
      await handle.sync().catch(() => undefined);
    },
    close: () => handle.close(),
  };
}

function readLinkOrUndefined(link: string): string | undefined {
  try {
    return fs.readlinkSync(link);
  } catch {
    return undefined;
  }
}

/**
 * Without /proc/self/fd: the folder by path, its real path checked when opened and again by the
 * writer after each rename (assertInside), which then removes what it wrote. A swap inside that
 * window is detected, not prevented.
 */
export async function openByPath(
  workspaceRoot: string,
  relativeDirectory: string,
  options: { create: boolean },
): Promise<WorkspaceDirectory | undefined> {
  // One component at a time, so a link already on the way is refused before anything is made
  // through it; a swap after this check is caught by assertInside.
  let absolutePath = workspaceRoot;
  let walked = "";
  for (const component of components(relativeDirectory)) {
    absolutePath = path.join(absolutePath, component);
    walked = walked === "" ? component : `${walked}/${component}`;
    const stats = await fsp.lstat(absolutePath).catch(() => undefined);
    if (stats?.isSymbolicLink() === true) {
      throw outsideError(
        walked,
        workspaceRoot,
        "became a symbolic link after its path was checked",
      );
    }
    if (stats !== undefined) continue;
    if (!options.create) return undefined;
    await fsp.mkdir(absolutePath).catch((error: unknown) => {
      if (errorCode(error) !== "EEXIST") throw error;
    });
  }
  const directory = directoryByPath(absolutePath, workspaceRoot);
  directory.assertInside();
  return directory;
}

/**
 * A folder named by its path. With `workspaceRoot`, assertInside checks its real path; without,
 * it checks nothing (writeFileAtomic's callers that are given an absolute path and no workspace).
 */
export function directoryByPath(absolutePath: string, workspaceRoot?: string): WorkspaceDirectory {
  return {
    absolutePath,
    accessPath: absolutePath,
    entry: (name) => path.join(absolutePath, name),
    assertInside: () => {
      if (workspaceRoot === undefined) return;
      let real: string | undefined;
      try {
        real = fs.realpathSync(absolutePath);
      } catch {
        real = undefined;
      }
      if (real === undefined || !isPathInside(workspaceRoot, real)) {
        throw outsideError(
          path.relative(workspaceRoot, absolutePath) || ".",
          workspaceRoot,
          "resolves outside the workspace (a folder on the way was replaced by a symbolic link)",
        );
      }
    },
    sync: () => syncDirectoryPath(absolutePath),
    close: async () => undefined,
  };
}

/** Makes a rename or unlink durable; some platforms cannot open folders, which is harmless. */
export async function syncDirectoryPath(directory: string): Promise<void> {
  try {
    const handle = await fsp.open(directory, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability of the folder entry is best effort; the data itself was already synced.
  }
}
