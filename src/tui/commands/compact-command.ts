// /compact: asks the server to summarise older turns now (session/compact). The session's
// context-compacted event reports the sizes to every attached client, this one included.
import { errorAction } from "../hooks/use-agent-session.ts";
import { notice, type SlashCommand } from "./slash-command.ts";

export const compactCommand: SlashCommand = {
  name: "compact",
  description: "summarise older turns now to free context",
  async run(_args, context) {
    try {
      const result = await context.client.request("session/compact", {
        sessionId: context.sessionId,
      });
      if (!result.compacted) notice(context, "Nothing to compact yet.");
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};
