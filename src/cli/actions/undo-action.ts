// `spark undo`'s work: the session found, its last edit's files put back, the undo recorded in
// its log. commands/undo-command.ts loads it lazily.
import { UndoStack } from "../../agent/edits/index.ts";
import { readSession } from "../../agent/session-store/read-session.ts";
import { findSession, sessionsDirectory } from "../../agent/session-store/session-directory.ts";
import { SessionLog } from "../../agent/session-store/session-log.ts";
import { loadConfig } from "../../config/load-config.ts";
import { SparkError } from "../../protocol/spark-error.ts";

export interface UndoFlags {
  session: string;
  force?: boolean;
  json?: boolean;
}

export async function runUndo(flags: UndoFlags): Promise<number> {
  const config = await loadConfig({ cwd: process.cwd(), env: process.env, flags: {} });
  let summary;
  try {
    summary = await findSession(sessionsDirectory(config.sparkHome), flags.session);
  } catch (error) {
    process.stderr.write(`spark undo: ${(error as Error).message}\n`);
    return 2;
  }
  const loaded = await readSession(summary.path);
  const stack = new UndoStack({ entries: loaded.undoEntries });
  const log = SessionLog.open(summary);
  try {
    const result = await stack.undo({
      workspaceRoot: summary.cwd,
      ...(flags.force === true ? { force: true } : {}),
    });
    const files = result.files.map((file) => ({
      path: file.path,
      action: file.action,
      unifiedDiff: file.diff,
    }));
    log.append({ type: "edit-undone", undoEntryId: result.entry.id, files });
    if (flags.json === true) {
      process.stdout.write(
        `${JSON.stringify({ sessionId: summary.id, undoEntryId: result.entry.id, files })}\n`,
      );
    } else {
      for (const file of files) {
        process.stdout.write(`${file.action} ${file.path}\n${file.unifiedDiff}`);
      }
      process.stdout.write(
        `Undid the last edit of session ${summary.id} (${files.length} file${files.length === 1 ? "" : "s"}).\n`,
      );
    }
    return 0;
  } catch (error) {
    const sparkError = SparkError.from(error);
    process.stderr.write(`spark undo: ${sparkError.message}\n`);
    return 1;
  } finally {
    log.close();
  }
}
