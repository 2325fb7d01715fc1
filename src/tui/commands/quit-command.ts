// /quit: leaves the terminal UI; a session on a server keeps running for its other clients.
import type { SlashCommand } from "./slash-command.ts";

export const quitCommand: SlashCommand = {
  name: "quit",
  description: "leave spark",
  async run(_args, context) {
    context.quit();
  },
};
