// /diff: the session's edits so far (those not undone), each as its coloured diff.
import type { SlashCommand } from "./slash-command.ts";

export const diffCommand: SlashCommand = {
  name: "diff",
  description: "show the edits the agent made in this session",
  async run(_args, context) {
    context.dispatch({ type: "show-edits" });
  },
};
