// /clear: clears the screen; the session and its context stay as they are.
import type { SlashCommand } from "./slash-command.ts";

export const clearCommand: SlashCommand = {
  name: "clear",
  description: "clear the screen (the session keeps its context)",
  async run(_args, context) {
    context.clearScreen();
  },
};
