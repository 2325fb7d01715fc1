// Every slash command, in the order /help lists them, and the completion of a typed `/prefix`.
import { clearCommand } from "./clear-command.ts";
import { compactCommand } from "./compact-command.ts";
import { diffCommand } from "./diff-command.ts";
import { helpCommand } from "./help-command.ts";
import { initCommand } from "./init-command.ts";
import { mcpCommand } from "./mcp-command.ts";
import { modelCommand } from "./model-command.ts";
import { newCommand } from "./new-command.ts";
import { outputCommand } from "./output-command.ts";
import { quitCommand } from "./quit-command.ts";
import { resumeCommand } from "./resume-command.ts";
import { sessionsCommand } from "./sessions-command.ts";
import { statusCommand } from "./status-command.ts";
import type { SlashCommand } from "./slash-command.ts";
import { undoCommand } from "./undo-command.ts";
import type { Suggestion } from "../views/suggestion-list.tsx";

export const slashCommands: readonly SlashCommand[] = [
  undoCommand,
  diffCommand,
  outputCommand,
  modelCommand,
  newCommand,
  resumeCommand,
  sessionsCommand,
  compactCommand,
  statusCommand,
  initCommand,
  mcpCommand,
  clearCommand,
  helpCommand,
  quitCommand,
];

export function findSlashCommand(name: string): SlashCommand | undefined {
  return slashCommands.find((command) => command.name === name);
}

/** Suggestions while the input is `/` plus a partial name (no space yet). */
export function completeSlashCommand(input: string): Suggestion[] {
  const match = /^\/(\S*)$/.exec(input);
  if (match === null) return [];
  const prefix = (match[1] ?? "").toLowerCase();
  return slashCommands
    .filter((command) => command.name.startsWith(prefix))
    .map((command) => ({
      value: `/${command.name}${command.argumentHint === undefined ? "" : " "}`,
      label: `/${command.name}${command.argumentHint === undefined ? "" : ` ${command.argumentHint}`}`,
      detail: command.description,
    }));
}
