// `spark undo [--session id|last]`: puts back the files of a session's last edit, from the undo
// entries in its log, and records the undo there so it is not undone twice.
// Only the command line is here; the undo is actions/undo-action.ts, loaded when it runs.
import type { Command } from "commander";
import type { UndoFlags } from "../actions/undo-action.ts";

export function registerUndoCommand(program: Command): void {
  program
    .command("undo")
    .description("Undo the last edit the agent made in a session")
    .option("-s, --session <session>", "session id, id prefix, or last", "last")
    .option("--force", "undo even if the file changed since the edit (those changes are lost)")
    .option("--json", "print the result as JSON")
    .action(async (flags: UndoFlags) => {
      const { runUndo } = await import("../actions/undo-action.ts");
      process.exitCode = await runUndo(flags);
    });
}
