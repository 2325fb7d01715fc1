// apply_patch: the Codex patch format (Add, Update with @@ anchors, Delete, Move) applied by the
// edit engine as one atomic change; each file's diff goes out as an edit-applied event.
import { z } from "zod";
import { applyPatch } from "../edits/index.ts";
import type { AppliedEdit } from "../../protocol/agent/index.ts";
import { defineTool } from "./agent-tool.ts";

const parameters = z.strictObject({
  patch: z.string().min(1).describe("The whole patch, from '*** Begin Patch' to '*** End Patch'."),
});

const description = `Edit files with a patch. Prefer small, targeted hunks; never rewrite a whole file unless the user asked for it. Format:
*** Begin Patch
*** Update File: src/app.ts
@@ function start() {
   const port = 8080;
-  listen(port);
+  listen(port, "127.0.0.1");
 }
*** Add File: src/new-file.ts
+export const created = true;
*** Delete File: src/old-file.ts
*** Update File: src/name.ts
*** Move to: src/new-name.ts
*** End Patch
In an Update, lines starting with " " are unchanged context, "-" removes a line and "+" adds one; give about 3 lines of context around each change, copied exactly from the file. "@@ <line>" names a line just above the change (a function or class header) to anchor the hunk when the context is not unique. Every line of an added file starts with "+". Paths are relative to the workspace root.`;

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description,
  parameters,
  summarize: ({ patch }) => {
    const files = [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((match) =>
      match[1]?.trim(),
    );
    return `apply_patch ${files.join(", ") || "(no files)"}`;
  },
  async execute({ patch }, context) {
    const result = await applyPatch({
      workspaceRoot: context.workspaceRoot,
      patchText: patch,
      ledger: context.ledger,
      undoStack: context.undoStack,
      signal: context.signal,
    });
    const edits: AppliedEdit[] = result.files.map((file) => ({
      path: file.path,
      kind: file.kind,
      ...(file.movedFrom === undefined ? {} : { movedFrom: file.movedFrom }),
      unifiedDiff: file.diff,
      linesAdded: file.linesAdded,
      linesRemoved: file.linesRemoved,
      undoEntryId: result.undoEntryId,
    }));
    const letters = { add: "A", update: "M", delete: "D", move: "R" } as const;
    const lines = result.files.map(
      (file) =>
        `${letters[file.kind]} ${file.movedFrom === undefined ? "" : `${file.movedFrom} -> `}${file.path} (+${file.linesAdded} -${file.linesRemoved})`,
    );
    return { output: `Patch applied:\n${lines.join("\n")}`, edits };
  },
});
