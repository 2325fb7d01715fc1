// /resume: picks a session from session/list (or takes an id or id prefix) and attaches to it;
// the attach shows its history.
import { errorAction } from "../hooks/use-agent-session.ts";
import { describeFailedMatch, matchSessionId } from "../../protocol/agent/match-session-id.ts";
import { describeSession } from "./describe-session.ts";
import { notice, type SlashCommand } from "./slash-command.ts";

export const resumeCommand: SlashCommand = {
  name: "resume",
  description: "continue an earlier or running session",
  answersWithPicker: (args) => args === "",
  argumentHint: "[session id]",
  async run(args, context) {
    try {
      const { sessions } = await context.client.request("session/list", {});
      const others = sessions.filter((session) => session.sessionId !== context.sessionId);
      if (args !== "") {
        const match = matchSessionId(others, args, (session) => session.sessionId);
        if ("session" in match) context.switchSession(match.session.sessionId);
        else notice(context, describeFailedMatch(args, match.candidates), "warning");
        return;
      }
      context.pick({
        title: "Resume a session",
        options: others.map((session) => ({
          value: session.sessionId,
          label: session.sessionId.slice(0, 12),
          detail: describeSession(session),
        })),
        onPick: (sessionId) => context.switchSession(sessionId),
      });
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};
