// edit: one search/replace in one file, matched by the edit engine's ladder (exact first, then
// whitespace-tolerant); creating a file is an empty oldText.
import { z } from "zod";
import { applySearchReplace } from "../edits/index.ts";
import { defineTool } from "./agent-tool.ts";

const parameters = z.strictObject({
  path: z.string().min(1).describe("Path of the file, relative to the workspace root."),
  oldText: z
    .string()
    .describe(
      "The exact text to replace, copied from the file (without line numbers), with enough surrounding lines to be unique. Empty to create a new file.",
    ),
  newText: z.string().describe("The text to put in its place."),
  replaceAll: z
    .boolean()
    .optional()
    .describe("Replace every occurrence instead of requiring exactly one. Default false."),
});

export const editTool = defineTool({
  name: "edit",
  description:
    "Replace one piece of text in a file with another (search and replace). For small, targeted changes; read the file first. Fails without changing anything if oldText is not found or matches more than once.",
  parameters,
  summarize: ({ path, replaceAll }) => `edit ${path}${replaceAll === true ? " (all)" : ""}`,
  async execute(args, context) {
    const result = await applySearchReplace({
      workspaceRoot: context.workspaceRoot,
      path: args.path,
      oldText: args.oldText,
      newText: args.newText,
      replaceAll: args.replaceAll === true,
      ledger: context.ledger,
      undoStack: context.undoStack,
      signal: context.signal,
    });
    const where =
      result.kind === "add"
        ? "created"
        : `${result.replacements} replacement${result.replacements === 1 ? "" : "s"} at line${result.matchedLines.length === 1 ? "" : "s"} ${result.matchedLines.join(", ")}`;
    return {
      output: `Edited ${result.path}: ${where} (+${result.linesAdded} -${result.linesRemoved}).`,
      edits: [
        {
          path: result.path,
          kind: result.kind,
          unifiedDiff: result.diff,
          linesAdded: result.linesAdded,
          linesRemoved: result.linesRemoved,
          undoEntryId: result.undoEntryId,
        },
      ],
    };
  },
});
