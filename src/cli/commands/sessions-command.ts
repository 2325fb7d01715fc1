// `spark sessions`: the agent sessions logged under <sparkHome>/sessions, newest first, with the
// id `spark exec --resume` and `spark undo --session` take. The listing is actions/sessions-action.ts.
import type { Command } from "commander";
import type { SessionsFlags } from "../actions/sessions-action.ts";

export function registerSessionsCommand(program: Command): void {
  program
    .command("sessions")
    .description("List agent sessions (id, start time, folder, first instruction, turns)")
    .option("--json", "print one JSON object per session")
    .option("-n, --limit <n>", "show at most this many (default 20)")
    .action(async (flags: SessionsFlags) => {
      const { listSessionsCommand } = await import("../actions/sessions-action.ts");
      await listSessionsCommand(flags);
    });
}
