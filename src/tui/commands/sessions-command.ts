// /sessions: lists the server's sessions, live ones and saved logs.
import { errorAction } from "../hooks/use-agent-session.ts";
import { describeSession } from "./describe-session.ts";
import { notice, type SlashCommand } from "./slash-command.ts";

export const sessionsCommand: SlashCommand = {
  name: "sessions",
  description: "list sessions (live and saved)",
  async run(_args, context) {
    try {
      const { sessions } = await context.client.request("session/list", {});
      if (sessions.length === 0) {
        notice(context, "No sessions yet.");
        return;
      }
      const lines = sessions.map(
        (session) =>
          `${session.sessionId === context.sessionId ? "*" : " "} ${session.sessionId.slice(0, 12)}  ${describeSession(session)}`,
      );
      notice(context, `Sessions (* is this one; /resume <id> to switch):\n${lines.join("\n")}`);
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};
