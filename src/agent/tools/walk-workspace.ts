// Lists a workspace's files the way git sees them: .gitignore files at every level (and those
// between the repository root and the workspace) are honoured; .git and node_modules are skipped.
// Never yields or enters anything whose real path is outside the workspace.
import { constants, existsSync, type Dirent } from "node:fs";
import { open, readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { isPathInside, listableDirectoryPath, openedRealPath } from "../edits/index.ts";

/** O_NOFOLLOW: a folder swapped for a link since it was listed is not entered. */
const DIRECTORY_FLAGS =
  constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

interface IgnoreLayer {
  /** Absolute directory the .gitignore lives in; its patterns are relative to it. */
  base: string;
  rules: Ignore;
}

export interface WalkOptions {
  /** Real path of the workspace root: yielded paths are relative to it, with "/" separators. */
  workspaceRoot: string;
  /** Absolute directory inside the workspace to list (default: the root). */
  start?: string;
  signal?: AbortSignal;
}

/** Yields file paths in a stable order (directory entries sorted by name, depth first). */
export async function* walkWorkspace(options: WalkOptions): AsyncGenerator<string> {
  const start = options.start ?? options.workspaceRoot;
  // The containment check compares real paths; a caller's root is real already, but be sure.
  const realRoot = await realpath(options.workspaceRoot).catch(() => options.workspaceRoot);
  const stack: { directory: string; layers: IgnoreLayer[] }[] = [
    { directory: start, layers: await ancestorLayers(start, options.workspaceRoot) },
  ];
  while (stack.length > 0) {
    options.signal?.throwIfAborted();
    const { directory, layers: parentLayers } = stack.pop() as (typeof stack)[number];
    const entries = await listDirectory(directory, realRoot);
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    const layers = entries.some((entry) => entry.name === ".gitignore" && entry.isFile())
      ? [...parentLayers, await readLayer(directory)]
      : parentLayers;
    const subdirectories: string[] = [];
    for (const entry of entries) {
      if (ALWAYS_SKIPPED.has(entry.name)) continue;
      const absolute = path.join(directory, entry.name);
      const isDirectory = entry.isDirectory();
      if (!isDirectory && !entry.isFile() && !entry.isSymbolicLink()) continue;
      if (entry.isSymbolicLink() && !(await isLinkToFileInside(absolute, options.workspaceRoot)))
        continue;
      if (isIgnored(layers, absolute, isDirectory)) continue;
      if (isDirectory) subdirectories.push(absolute);
      else yield toWorkspacePath(options.workspaceRoot, absolute);
    }
    for (const subdirectory of subdirectories.reverse())
      stack.push({ directory: subdirectory, layers });
  }
}

/**
 * A folder's entries, read through the folder actually opened (without following a link) and
 * only when that folder's real path is inside the workspace: a folder swapped for a link to
 * another place after its parent was listed shows none of that place's names. [] when unreadable.
 */
async function listDirectory(directory: string, workspaceRoot: string): Promise<Dirent[]> {
  const handle = await open(directory, DIRECTORY_FLAGS).catch(() => undefined);
  if (handle === undefined) return [];
  try {
    const real = openedRealPath(handle.fd, directory);
    if (real === undefined || !isPathInside(workspaceRoot, real)) return [];
    return await readdir(listableDirectoryPath(handle.fd, directory), { withFileTypes: true });
  } catch {
    return [];
  } finally {
    await handle.close();
  }
}

/**
 * A link is listed only when it resolves to a regular file inside the workspace: a link out of
 * it would hand its target to search, and a link to a folder is never entered (its real folder is
 * walked under its own name), so a link loop cannot trap the walk.
 */
async function isLinkToFileInside(link: string, workspaceRoot: string): Promise<boolean> {
  try {
    const target = await realpath(link);
    return isPathInside(workspaceRoot, target) && (await stat(target)).isFile();
  } catch {
    return false; // Dangling, a loop (ELOOP), or unreadable.
  }
}

function isIgnored(
  layers: readonly IgnoreLayer[],
  absolute: string,
  isDirectory: boolean,
): boolean {
  let ignored = false;
  // Deeper .gitignore files come later and can re-include what a shallower one excluded.
  for (const layer of layers) {
    const relative = path.relative(layer.base, absolute).split(path.sep).join("/");
    const result = layer.rules.test(isDirectory ? `${relative}/` : relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

async function readLayer(directory: string): Promise<IgnoreLayer> {
  const text = await readFile(path.join(directory, ".gitignore"), "utf8").catch(() => "");
  return { base: directory, rules: ignore().add(text) };
}

/**
 * .gitignore files above `start` that still apply to it: from the repository root (nearest .git),
 * or from the workspace root when there is no repository, down to (not including) `start`.
 */
async function ancestorLayers(start: string, workspaceRoot: string): Promise<IgnoreLayer[]> {
  const ancestors: string[] = [];
  let current = start;
  while (!existsSync(path.join(current, ".git"))) {
    const parent = path.dirname(current);
    if (parent === current) {
      // No repository: keep the ancestors inside the workspace only.
      const inside = ancestors.filter(
        (directory) => !path.relative(workspaceRoot, directory).startsWith(".."),
      );
      return readLayers(inside);
    }
    ancestors.unshift(parent);
    current = parent;
  }
  return readLayers(ancestors);
}

async function readLayers(directories: readonly string[]): Promise<IgnoreLayer[]> {
  const layers: IgnoreLayer[] = [];
  for (const directory of directories) {
    if (existsSync(path.join(directory, ".gitignore"))) layers.push(await readLayer(directory));
  }
  return layers;
}

function toWorkspacePath(workspaceRoot: string, absolute: string): string {
  return path.relative(workspaceRoot, absolute).split(path.sep).join("/");
}
