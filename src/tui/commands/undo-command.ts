// /undo: reverts the session's last edit through `edit/undo`; the server's edit-undone event then
// shows what was restored.
import { errorAction } from "../hooks/use-agent-session.ts";
import { notice, type SlashCommand } from "./slash-command.ts";

export const undoCommand: SlashCommand = {
  name: "undo",
  description: "revert the agent's last edit (add `force` to undo over later changes)",
  argumentHint: "[force]",
  async run(args, context) {
    try {
      const result = await context.client.request("edit/undo", {
        sessionId: context.sessionId,
        ...(args === "force" ? { force: true } : {}),
      });
      if (result.files.length === 0) notice(context, "Nothing was changed by the undo.");
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};
