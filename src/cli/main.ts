// The `spark` command line: one subcommand per file under commands/, errors printed for people.
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { SparkError } from "../protocol/spark-error.ts";
import { registerModelCommands } from "./commands/models-command.ts";
import { registerPromptCommand } from "./commands/prompt-command.ts";
import { registerExecCommand } from "./commands/exec-command.ts";
import { registerSessionsCommand } from "./commands/sessions-command.ts";
import { registerUndoCommand } from "./commands/undo-command.ts";
import { registerServeCommand } from "./commands/serve-command.ts";
import { registerTuiCommand } from "./commands/tui-command.ts";
import { registerEvalCommand } from "./commands/eval-command.ts";
import { registerDoctorCommand } from "./commands/doctor-command.ts";
import { registerTemplateCommand } from "./commands/template-command.ts";
import { registerMcpCommand } from "./commands/mcp-command.ts";

const packageJson = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
) as {
  version: string;
};

const program = new Command()
  .name("spark")
  .description("Latency-first real-time AI coding")
  .version(packageJson.version, "-v, --version")
  .addHelpText(
    "after",
    "\nDocumentation: README.md and SECURITY.md, and docs/ in Spark's repository, one page per\n" +
      "topic: commands, terminal-ui, browser-app, editor, serve, clients, agent, configuration,\n" +
      "routing, eval, gpu, benchmarks, development.",
  );
registerPromptCommand(program);
registerModelCommands(program);
registerExecCommand(program);
registerSessionsCommand(program);
registerUndoCommand(program);
registerServeCommand(program);
registerTuiCommand(program);
registerEvalCommand(program);
registerDoctorCommand(program);
registerTemplateCommand(program);
registerMcpCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const sparkError = SparkError.from(error);
  process.stderr.write(`spark: ${sparkError.message} [${sparkError.code}]\n`);
  process.exitCode = sparkError.code === "cancelled" ? 130 : 1;
}
