// /output: the latest command's whole output (the transcript shows its last lines), as Ctrl+T.
import type { SlashCommand } from "./slash-command.ts";

export const outputCommand: SlashCommand = {
  name: "output",
  description: "show the latest command's whole output (also Ctrl+T)",
  async run(_args, context) {
    context.dispatch({ type: "show-output" });
  },
};
