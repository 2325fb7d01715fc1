// Resolves the optional `path` argument of list_files and search to a directory (or single file)
// inside the workspace, with errors worded for the model.
import { stat } from "node:fs/promises";
import { EditError, resolveWorkspacePath, type WorkspacePath } from "../edits/index.ts";

export interface SearchRoot {
  target: WorkspacePath;
  isFile: boolean;
}

export async function resolveSearchRoot(
  workspaceRoot: string,
  input: string | undefined,
): Promise<SearchRoot> {
  const target = resolveWorkspacePath(
    workspaceRoot,
    input === undefined || input === "" ? "." : input,
  );
  const stats = await stat(target.absolutePath).catch(() => undefined);
  if (stats === undefined) {
    throw new EditError(
      "file_not_found",
      `${target.relativePath || "."} does not exist; call list_files without a path to see the workspace`,
      { path: target.relativePath },
    );
  }
  return { target, isFile: stats.isFile() };
}
