// A session's undo history: each applied edit pushes one entry; undo() puts back every file of
// the last entry in one atomic commit, refusing when a file changed since the edit (unless forced).
import { randomUUID } from "node:crypto";
import { promises as fsp } from "node:fs";
import { z } from "zod";
import { SparkError } from "../../protocol/spark-error.ts";
import { commitFileChanges, type PlannedChange } from "./commit-file-changes.ts";
import { EditError } from "./edit-error.ts";
import { diffFile, type FileDiff } from "./file-diff.ts";
import type { FileReadLedger } from "./file-read-ledger.ts";
import { readFileState, stateSha256, type FileState } from "./file-state.ts";
import { resolveWritablePath } from "./resolve-workspace-path.ts";
import { decodeTextFile } from "./text-file-format.ts";
import {
  loadContent,
  undoEntryFromChanges,
  undoEntrySchema,
  type UndoEntry,
} from "./undo-entry.ts";
import type { BeforeRenameHook } from "./write-file-atomic.ts";

const undoStackJsonSchema = z.object({
  version: z.literal(1),
  entries: z.array(undoEntrySchema),
});
export type UndoStackJson = z.infer<typeof undoStackJsonSchema>;

export interface UndoOptions {
  workspaceRoot: string;
  /** Restore even if a file changed since the edit (those later changes are lost). */
  force?: boolean;
  /** When given, the restored content counts as read, so the model can keep editing. */
  ledger?: FileReadLedger;
  signal?: AbortSignal;
  beforeRename?: BeforeRenameHook;
}

export interface UndoneFile extends FileDiff {
  path: string;
  action: "restored" | "deleted";
}

export interface UndoResult {
  entry: UndoEntry;
  files: UndoneFile[];
}

export class UndoStack {
  private readonly entries: UndoEntry[];
  private queue: Promise<unknown> = Promise.resolve();
  readonly maxEntries: number;

  constructor(options: { maxEntries?: number; entries?: UndoEntry[] } = {}) {
    this.maxEntries = options.maxEntries ?? 100;
    this.entries = [...(options.entries ?? [])];
  }

  get size(): number {
    return this.entries.length;
  }

  peek(): UndoEntry | undefined {
    return this.entries.at(-1);
  }

  /** Records a committed edit; the oldest entry falls off past maxEntries. */
  recordChanges(tool: UndoEntry["tool"], changes: readonly PlannedChange[]): UndoEntry {
    const entry = undoEntryFromChanges(tool, changes, randomUUID());
    this.push(entry);
    return entry;
  }

  push(entry: UndoEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.maxEntries)
      this.entries.splice(0, this.entries.length - this.maxEntries);
  }

  /**
   * Runs one edit of this session at a time: edits and undos read, plan and write files, and two
   * interleaved ones could each plan from content the other is about to replace.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Restores the files of the last entry and removes it; throws EditError when it cannot. */
  undo(options: UndoOptions): Promise<UndoResult> {
    return this.exclusive(() => this.undoNow(options));
  }

  private async undoNow(options: UndoOptions): Promise<UndoResult> {
    const entry = this.peek();
    if (entry === undefined) {
      throw new EditError("no_change", "There is no edit to undo in this session.");
    }
    const changes: PlannedChange[] = [];
    for (const file of entry.files) {
      const target = resolveWritablePath(options.workspaceRoot, file.path);
      const current = await readFileState(target);
      if (options.force !== true && stateSha256(current) !== file.afterSha256) {
        throw new EditError(
          "stale_file",
          `${file.path} changed since that edit; undoing it would discard those later changes (undo with force to do it anyway)`,
          { path: file.path },
        );
      }
      const change: PlannedChange = {
        target,
        before: current,
        after: file.before === null ? null : loadContent(file.before),
      };
      if (file.beforeMode !== undefined) change.mode = file.beforeMode;
      changes.push(change);
    }
    await commitFileChanges(
      changes.filter((change) => !sameContent(change.before, change.after)),
      {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.beforeRename === undefined ? {} : { beforeRename: options.beforeRename }),
      },
    );
    this.entries.pop();
    const files: UndoneFile[] = [];
    for (const change of changes) {
      await recordInLedger(options.ledger, change);
      files.push({
        path: change.target.relativePath,
        action: change.after === null ? "deleted" : "restored",
        ...describeChange(change),
      });
    }
    return { entry, files };
  }

  toJSON(): UndoStackJson {
    return { version: 1, entries: structuredClone(this.entries) };
  }

  /** Rebuilds a stack persisted with toJSON(); throws a SparkError for malformed input. */
  static fromJSON(value: unknown, options: { maxEntries?: number } = {}): UndoStack {
    const parsed = undoStackJsonSchema.safeParse(value);
    if (!parsed.success) {
      throw new SparkError(
        "invalid_request",
        `The saved undo history is malformed: ${parsed.error.message}`,
      );
    }
    return new UndoStack({ ...options, entries: parsed.data.entries });
  }
}

function sameContent(before: FileState, after: Uint8Array | null): boolean {
  if (!before.exists) return after === null;
  return after !== null && Buffer.from(after).equals(before.bytes);
}

async function recordInLedger(ledger: FileReadLedger | undefined, change: PlannedChange) {
  if (ledger === undefined) return;
  if (change.after === null) {
    ledger.forget(change.target.absolutePath);
    return;
  }
  const stats = await fsp.stat(change.target.absolutePath).catch(() => undefined);
  ledger.recordContent(change.target.absolutePath, change.after, {
    mtimeMs: stats?.mtimeMs ?? 0,
    size: change.after.length,
  });
}

function describeChange(change: PlannedChange): FileDiff {
  const path = change.target.relativePath;
  const oldText = change.before.exists ? (decodeTextFile(change.before.bytes)?.text ?? "") : "";
  const newText = change.after === null ? "" : (decodeTextFile(change.after)?.text ?? "");
  return diffFile(
    change.before.exists ? path : null,
    change.after === null ? null : path,
    oldText,
    newText,
  );
}
