// /help: the slash commands and the keys.
import { notice, type SlashCommand } from "./slash-command.ts";

export const KEY_HELP = [
  "Enter       send (while the agent runs: steer it now)",
  "Tab         while the agent runs: queue the message (sent when the turn ends); otherwise complete",
  "Alt+↑       take the last queued message back into the input",
  "Esc         interrupt the running turn (its output so far is kept; queued messages come back)",
  "↑ / ↓       input history, or move in a suggestion list",
  "@path       name a file (Tab completes from the workspace)",
  "y / n / a   answer a command approval: run, refuse, run and allow this exact command for the session",
  "Ctrl+C      stop the running turn; when idle, twice to quit",
  "Ctrl+T      the latest command's whole output (the transcript shows its last lines)",
  "Ctrl+A / E  start / end of the line (also Home / End); Ctrl+U clears it, Ctrl+W deletes a word",
  "Delete      the character under the cursor (Backspace: the one before it)",
];

export const helpCommand: SlashCommand = {
  name: "help",
  description: "show commands and keys",
  async run(_args, context) {
    const width = Math.max(...context.commands.map((command) => commandLabel(command).length));
    const commands = context.commands.map(
      (command) => `/${commandLabel(command).padEnd(width)}  ${command.description}`,
    );
    notice(context, ["Commands:", ...commands, "", "Keys:", ...KEY_HELP].join("\n"));
  },
};

function commandLabel(command: { name: string; argumentHint?: string }): string {
  return command.argumentHint === undefined
    ? command.name
    : `${command.name} ${command.argumentHint}`;
}
