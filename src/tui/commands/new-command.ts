// /new: starts a fresh session in the same directory (session/start) and switches to it.
import { errorAction } from "../hooks/use-agent-session.ts";
import type { SlashCommand } from "./slash-command.ts";

export const newCommand: SlashCommand = {
  name: "new",
  description: "start a new session",
  async run(_args, context) {
    try {
      const { session } = await context.client.request("session/start", {
        ...(context.cwd === undefined ? {} : { cwd: context.cwd }),
      });
      context.switchSession(session.sessionId);
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};
