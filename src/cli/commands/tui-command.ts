// `spark` with no command (or `spark tui`): the interactive terminal UI. Exit codes: 0 after
// /quit or Ctrl+C twice, 1 error, 2 usage (including "not a terminal").
import type { Command } from "commander";
import { exitWithUsageCodes } from "./exec-command.ts";

interface TuiCommandFlags {
  model?: string;
  server?: string;
  session?: string;
  cwd?: string;
  allowCommands?: boolean;
}

export function registerTuiCommand(program: Command): void {
  program
    .command("tui", { isDefault: true })
    .description("Interactive terminal UI (what `spark` with no command starts)")
    .option("-m, --model <model>", "configured model name, a .gguf path, or script:<file.jsonl>")
    .option("--server <url>", "attach to a spark serve agent endpoint (ws://host:port)")
    .option("--session <id>", "join or resume this session (an id or id prefix)")
    .option("--cwd <dir>", "the repository to work in (default: the current directory)")
    .option("--allow-commands", "let the agent run any shell command without asking")
    .exitOverride(exitWithUsageCodes)
    .action(async (flags: TuiCommandFlags) => {
      // React's development build checks every render; a terminal UI at 1,000+ tokens/s should not.
      process.env.NODE_ENV ??= "production";
      // Loaded here so other commands never pay for React and Ink.
      const { runTui } = await import("../../tui/run-tui.tsx");
      process.exitCode = await runTui(flags);
    });
}
