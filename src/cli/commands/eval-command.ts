// `spark eval`: runs the bundled edit tasks on chosen models through the real agent and prints
// pass rate, median time per task, time to first token and decode tokens/s side by side per model
// (--json writes the full report). Exit codes: 0 ran, 1 error, 2 usage, 130 interrupted.
// Only the command line is here; the run itself is actions/eval-action.ts, loaded when it runs.
import type { Command } from "commander";
import type { EvalFlags } from "../actions/eval-action.ts";
import { exitWithUsageCodes } from "../exit-codes.ts";

const DEFAULT_TIMEOUT_SECONDS = 300;

export function registerEvalCommand(program: Command): void {
  program
    .command("eval")
    .description("Run the bundled edit tasks on models through the agent and compare them")
    .option(
      "--models <list>",
      "comma-separated models: configured names or aliases (fast, deep), .gguf paths, script:<file.jsonl> (default: the configured default)",
    )
    .option("--tasks <list>", "comma-separated task names (default: all; see --list)")
    .option("--tasks-dir <dir>", "run the tasks in this folder instead of the bundled ones")
    .option("--json <file>", "also write the full report (schema spark-eval/2) to this file")
    .option("--repeat <n>", "runs of every task on every model (default 1)")
    .option(
      "--timeout <seconds>",
      `time allowed for one task's agent turn (default ${DEFAULT_TIMEOUT_SECONDS})`,
    )
    .option("--max-steps <n>", "model calls allowed per task (default 50)")
    .option("--allow-commands", "let the agent run any shell command in the task's copy")
    .option("--list", "list the tasks and exit")
    .exitOverride(exitWithUsageCodes)
    .action(async (flags: EvalFlags) => {
      // Loaded only now: the agent, the tasks and the engines are for this command alone.
      const { runEvalCommand } = await import("../actions/eval-action.ts");
      process.exitCode = await runEvalCommand(flags, DEFAULT_TIMEOUT_SECONDS);
    });
}
