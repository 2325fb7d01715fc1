// search: a regular expression over the workspace's text files (gitignore-aware), answering
// "path:line: text" lines, stopping at a result cap. A file is read only when what was opened is
// inside the workspace and has one hard link (the promise read_file keeps too).
import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync } from "node:fs";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { join } from "node:path";
import { z } from "zod";
import { isPathInside, openedRealPath } from "../edits/index.ts";
import { defineTool } from "./agent-tool.ts";
import { createGlobFilter } from "./glob-filter.ts";
import { resolveSearchRoot } from "./resolve-directory.ts";
import { walkWorkspace } from "./walk-workspace.ts";

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_LINE_CHARS = 300;
const READ_BATCH = 32;

const parameters = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe('JavaScript regular expression to find, e.g. "function\\\\s+parse" or "TODO".'),
  path: z
    .string()
    .optional()
    .describe("Folder or file to search, relative to the workspace root. Default: everything."),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts".'),
  caseSensitive: z.boolean().optional().describe("Match case exactly. Default false."),
  maxResults: z
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe("Stop after this many matching lines. Default 100."),
});

/** O_NONBLOCK: a FIFO swapped in never blocks the open (regular files ignore it). */
const OPEN_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** O_NOFOLLOW: opening a link fails (ELOOP) instead of reading its target unchecked. */
const OPEN_NO_FOLLOW = OPEN_READ | (constants.O_NOFOLLOW ?? 0);

/** A walked file's bytes, or how many hard links kept it from being read. */
type WalkedRead = { bytes: Buffer } | { hardLinks: number };

function readRegularFile(
  workspaceRoot: string,
  absolutePath: string,
  flags: number,
): WalkedRead | undefined {
  const descriptor = openSync(absolutePath, flags);
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return undefined;
    // What was opened, not the path: a folder swapped for a link since the walk is caught here.
    const real = openedRealPath(descriptor, absolutePath);
    if (real === undefined || !isPathInside(workspaceRoot, real)) return undefined;
    if (stats.nlink > 1) return { hardLinks: stats.nlink };
    return { bytes: readFileSync(descriptor) };
  } finally {
    closeSync(descriptor);
  }
}

/**
 * A walked file's bytes, or undefined when it is not a readable regular file inside the workspace.
 * A link is checked again at read time (the walk did too): it may have changed since.
 */
function readWorkspaceFile(workspaceRoot: string, file: string): WalkedRead | undefined {
  const absolute = join(workspaceRoot, file);
  try {
    return readRegularFile(workspaceRoot, absolute, OPEN_NO_FOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOOP") return undefined;
  }
  try {
    const target = realpathSync.native(absolute);
    if (!isPathInside(workspaceRoot, target)) return undefined;
    return readRegularFile(workspaceRoot, target, OPEN_READ);
  } catch {
    return undefined;
  }
}

export const searchTool = defineTool({
  name: "search",
  description:
    "Search the workspace's text files for a regular expression. Answers one matching line per result as path:line: text. Files ignored by .gitignore are skipped. Use it to find where something is defined or used before reading files.",
  parameters,
  summarize: ({ pattern, path, glob }) =>
    `search /${pattern}/${path === undefined ? "" : ` in ${path}`}${glob === undefined ? "" : ` (${glob})`}`,
  async execute(args, context) {
    let regex: RegExp;
    try {
      regex = new RegExp(args.pattern, args.caseSensitive === true ? "" : "i");
    } catch (error) {
      return {
        output: `The pattern is not a valid regular expression (${(error as Error).message}); escape special characters such as ( [ { . * + ? with a backslash.`,
        isError: true,
      };
    }
    const maxResults = args.maxResults ?? 100;
    const root = await resolveSearchRoot(context.workspaceRoot, args.path);
    const matches = createGlobFilter(args.glob);
    const results: string[] = [];
    let filesSearched = 0;
    let hardLinkedSkipped = 0;
    let capped = false;
    // Synchronous reads in small batches: several times faster than fs/promises on thousands of
    // small files, and the event loop still gets a turn between batches (interrupts stay prompt).
    const searchFile = (file: string): string[] => {
      const read = readWorkspaceFile(context.workspaceRoot, file);
      if (read === undefined) return [];
      if ("hardLinks" in read) {
        hardLinkedSkipped += 1;
        return [];
      }
      const { bytes } = read;
      if (bytes.subarray(0, 8192).includes(0)) return [];
      filesSearched += 1;
      const found: string[] = [];
      const lines = bytes.toString("utf8").split(/\r?\n/);
      for (const [index, line] of lines.entries()) {
        if (!regex.test(line)) continue;
        const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
        found.push(`${file}:${index + 1}: ${shown.trim()}`);
      }
      return found;
    };
    const files = root.isFile
      ? [root.target.relativePath]
      : walkWorkspace({
          workspaceRoot: context.workspaceRoot,
          start: root.target.absolutePath,
          signal: context.signal,
        });
    let batch: string[] = [];
    const flush = async (): Promise<void> => {
      for (const file of batch) {
        for (const line of searchFile(file)) {
          if (results.length >= maxResults) {
            capped = true;
            return;
          }
          results.push(line);
        }
      }
      batch = [];
      await yieldToEventLoop();
    };
    for await (const file of files) {
      if (!matches(file)) continue;
      batch.push(file);
      if (batch.length >= READ_BATCH) await flush();
      if (capped) break;
      context.signal.throwIfAborted();
    }
    if (!capped) await flush();
    const skipped =
      hardLinkedSkipped === 0
        ? ""
        : `\n[${hardLinkedSkipped} ${hardLinkedSkipped === 1 ? "file has" : "files have"} more than one hard link and ${hardLinkedSkipped === 1 ? "was" : "were"} not searched: Spark cannot tell whether their other names are outside the workspace]`;
    if (results.length === 0) {
      return { output: `No matches for /${args.pattern}/ in ${filesSearched} files.${skipped}` };
    }
    const note = capped
      ? `\n[stopped at ${maxResults} results; narrow the pattern, path or glob, or raise maxResults]`
      : "";
    return { output: results.join("\n") + note + skipped };
  },
});
