// read_file: a file's lines (all, or a 1-based range) numbered for reference; records the full
// content in the read-ledger so a later edit can tell whether the file changed underneath.
// Reads through openWorkspaceFile: no link out of the workspace, no hard-linked file.
import { z } from "zod";
import { EditError, openWorkspaceFile, resolveWorkspacePath } from "../edits/index.ts";
import { defineTool } from "./agent-tool.ts";

const MAX_FILE_BYTES = 10 * 1024 * 1024;

const parameters = z.strictObject({
  path: z.string().min(1).describe("Path of the file, relative to the workspace root."),
  startLine: z
    .int()
    .min(1)
    .max(10_000_000)
    .optional()
    .describe("First line to read, 1-based. Default 1."),
  endLine: z
    .int()
    .min(1)
    .max(10_000_000)
    .optional()
    .describe("Last line to read, inclusive. Default: the end of the file."),
});

export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file from the workspace. Each output line starts with its line number and a tab; the number is not part of the file. Read only the range you need (startLine/endLine) for large files. Read a file before editing it.",
  parameters,
  summarize: ({ path, startLine, endLine }) =>
    startLine === undefined && endLine === undefined
      ? `read_file ${path}`
      : `read_file ${path}:${startLine ?? 1}-${endLine ?? "end"}`,
  async execute({ path, startLine, endLine }, context) {
    const target = resolveWorkspacePath(context.workspaceRoot, path);
    const opened = await openWorkspaceFile(target);
    if (opened === undefined) {
      throw new EditError(
        "file_not_found",
        `${target.relativePath} does not exist; use list_files or search to find the right path`,
        { path: target.relativePath },
      );
    }
    const { handle, stats } = opened;
    let bytes: Buffer;
    try {
      if (stats.isDirectory()) {
        return {
          output: `${target.relativePath} is a directory; use list_files to see what is in it.`,
          isError: true,
        };
      }
      if (!stats.isFile()) {
        return {
          output: `${target.relativePath} is not a regular file (a device, socket or pipe); only files can be read.`,
          isError: true,
        };
      }
      if (stats.size > MAX_FILE_BYTES) {
        return {
          output: `${target.relativePath} is ${stats.size} bytes, too large to read; use search to find the lines you need.`,
          isError: true,
        };
      }
      bytes = await handle.readFile({ signal: context.signal });
    } finally {
      await handle.close();
    }
    if (bytes.subarray(0, 8192).includes(0)) {
      throw new EditError(
        "not_a_text_file",
        `${target.relativePath} is a binary file (${bytes.length} bytes); it cannot be read as text`,
        { path: target.relativePath },
      );
    }
    context.ledger.recordRead(target.absolutePath, bytes, {
      mtimeMs: stats.mtimeMs,
      size: stats.size,
    });
    const text = bytes.toString("utf8");
    const lines = text.split(/\r?\n/);
    if (lines.at(-1) === "") lines.pop();
    if (lines.length === 0) return { output: `(${target.relativePath} is empty)` };
    const first = startLine ?? 1;
    const last = Math.min(endLine ?? lines.length, lines.length);
    if (first > lines.length) {
      return {
        output: `startLine ${first} is past the end of ${target.relativePath}, which has ${lines.length} lines.`,
        isError: true,
      };
    }
    if (last < first) {
      return {
        output: `endLine ${last} is before startLine ${first}; give a range with startLine <= endLine.`,
        isError: true,
      };
    }
    const width = String(last).length;
    const numbered = lines
      .slice(first - 1, last)
      .map((line, index) => `${String(first + index).padStart(width)}\t${line}`);
    return {
      output: numbered.join("\n"),
      continuation: (keptLines) =>
        `The file has ${lines.length} lines; call read_file with startLine ${first + keptLines} to read on.`,
    };
  },
});
