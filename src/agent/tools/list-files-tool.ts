// list_files: the workspace's files (or a folder's), honouring .gitignore, optionally filtered by
// a glob; directories are implied by the paths.
import { z } from "zod";
import { defineTool } from "./agent-tool.ts";
import { createGlobFilter } from "./glob-filter.ts";
import { resolveSearchRoot } from "./resolve-directory.ts";
import { walkWorkspace } from "./walk-workspace.ts";

const parameters = z.strictObject({
  path: z
    .string()
    .optional()
    .describe("Folder to list, relative to the workspace root. Default: the whole workspace."),
  glob: z
    .string()
    .optional()
    .describe('Only list files matching this glob, e.g. "*.ts" or "src/**/*.test.ts".'),
});

export const listFilesTool = defineTool({
  name: "list_files",
  description:
    "List files in the workspace (or one folder of it), one path per line relative to the workspace root. Files ignored by .gitignore, .git and node_modules are left out.",
  parameters,
  summarize: ({ path, glob }) =>
    `list_files ${path ?? "."}${glob === undefined ? "" : ` (${glob})`}`,
  async execute({ path, glob }, context) {
    const root = await resolveSearchRoot(context.workspaceRoot, path);
    if (root.isFile) return { output: root.target.relativePath };
    const matches = createGlobFilter(glob);
    const files: string[] = [];
    for await (const file of walkWorkspace({
      workspaceRoot: context.workspaceRoot,
      start: root.target.absolutePath,
      signal: context.signal,
    })) {
      if (matches(file)) files.push(file);
    }
    if (files.length === 0) {
      return {
        output: `No files${glob === undefined ? "" : ` match ${glob}`} in ${root.target.relativePath || "the workspace"}.`,
      };
    }
    return {
      output: files.join("\n"),
      continuation: () =>
        `${files.length} files in all; list a subfolder (path) or filter with glob to see the rest.`,
    };
  },
});
