// The shape of one undo record: the prior bytes (or absence) of every file an edit touched, and a
// hash of what the edit left there, so undo can tell whether someone changed the file since.
import { z } from "zod";
import { sha256Of } from "./file-read-ledger.ts";
import type { PlannedChange } from "./commit-file-changes.ts";

export const storedContentSchema = z.object({
  encoding: z.enum(["utf8", "base64"]),
  data: z.string(),
});
export type StoredContent = z.infer<typeof storedContentSchema>;

export const undoFileSchema = z.object({
  /** Workspace-relative path, "/" separators. */
  path: z.string().min(1),
  /** The file's content before the edit; null when the edit created it. */
  before: storedContentSchema.nullable(),
  beforeMode: z.number().int().nonnegative().optional(),
  /** sha256 of what the edit wrote; null when the edit deleted (or moved away) the file. */
  afterSha256: z.string().nullable(),
});
export type UndoFile = z.infer<typeof undoFileSchema>;

export const undoEntrySchema = z.object({
  id: z.string().min(1),
  tool: z.enum(["apply_patch", "edit"]),
  createdAt: z.string(),
  files: z.array(undoFileSchema),
});
export type UndoEntry = z.infer<typeof undoEntrySchema>;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Text round-trips as readable JSON; anything else (a deleted binary file) as base64. */
export function storeContent(bytes: Uint8Array): StoredContent {
  try {
    return { encoding: "utf8", data: strictUtf8.decode(bytes) };
  } catch {
    return { encoding: "base64", data: Buffer.from(bytes).toString("base64") };
  }
}

export function loadContent(content: StoredContent): Buffer {
  return content.encoding === "utf8"
    ? Buffer.from(content.data, "utf8")
    : Buffer.from(content.data, "base64");
}

export function undoEntryFromChanges(
  tool: UndoEntry["tool"],
  changes: readonly PlannedChange[],
  id: string,
): UndoEntry {
  return {
    id,
    tool,
    createdAt: new Date().toISOString(),
    files: changes.map((change) => {
      const file: UndoFile = {
        path: change.target.relativePath,
        before: change.before.exists ? storeContent(change.before.bytes) : null,
        afterSha256: change.after === null ? null : sha256Of(change.after),
      };
      if (change.before.exists) file.beforeMode = change.before.mode;
      return file;
    }),
  };
}
