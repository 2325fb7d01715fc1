// `spark exec "<instruction>"`: one headless agent turn in the current repository, streamed for
// people (or as JSONL events with --json). Exit codes: 0 done, 1 error, 2 usage, 130 interrupted.
// Only the command line is here; the turn itself is actions/exec-action.ts, loaded when it runs.
import type { Command } from "commander";
import type { ExecFlags } from "../actions/exec-action.ts";
import { exitWithUsageCodes } from "../exit-codes.ts";

export function registerExecCommand(program: Command): void {
  program
    .command("exec")
    .description("Run the coding agent headless on one instruction in this repository")
    .argument("<instruction>", "what the agent should do")
    .option("-m, --model <model>", "configured model name, a .gguf path, or script:<file.jsonl>")
    .option(
      "--server <url>",
      "reach the model through a spark serve gateway (ws://host:port; HTTP/SSE if no WebSocket opens in 2 s)",
    )
    .option("--json", "print JSONL events instead of text")
    .option("--resume <session>", "continue a session: its id, an id prefix, or last")
    .option("--allow-commands", "let the agent run any shell command without asking")
    .option(
      "--allow-network",
      "let the agent's commands reach the network (sandbox: off by default)",
    )
    .option("--max-steps <n>", "model calls allowed in the turn (default 50)")
    .option("--cwd <dir>", "the repository to work in (default: the current directory)")
    .exitOverride(exitWithUsageCodes)
    .action(async (instruction: string, flags: ExecFlags) => {
      // Loaded only now: the agent, its tools and the host are for this command alone.
      const { runExec } = await import("../actions/exec-action.ts");
      process.exitCode = await runExec(instruction, flags);
    });
}
