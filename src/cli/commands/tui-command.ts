// `spark` with no command (or `spark tui`): the interactive terminal UI. Exit codes: 0 after
// /quit or Ctrl+C twice, 1 error, 2 usage (including "not a terminal").
import type { Command } from "commander";
import { holdTypeAhead } from "../../tui/type-ahead.ts";
import { exitWithUsageCodes } from "../exit-codes.ts";

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
      // Raw mode before anything slow loads: what is typed meanwhile waits for the prompt.
      const typeAhead = holdTypeAhead(process.stdin, () => process.exit(130));
      try {
        // Loaded here so other commands never pay for React and Ink.
        const { runTui } = await importInteractiveRenderer(() => import("../../tui/run-tui.tsx"));
        process.exitCode = await runTui(flags, typeAhead);
      } finally {
        typeAhead.cancel();
      }
    });
}

/**
 * React and Ink read the environment once, when they load: React picks its development build
 * (checks on every render; too slow at 1,000+ tokens/s) unless NODE_ENV is production, and Ink
 * draws only the final frame when CI is set. This UI runs only on a real terminal, so it loads
 * them as for an interactive production session, then puts the variables back: commands the
 * agent runs (`npm install`, a test runner) must see the user's own NODE_ENV and CI.
 */
async function importInteractiveRenderer<Module>(load: () => Promise<Module>): Promise<Module> {
  const names = ["NODE_ENV", "CI", "CONTINUOUS_INTEGRATION"] as const;
  const saved = names.map((name) => [name, process.env[name]] as const);
  process.env.NODE_ENV = "production";
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    return await load();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
