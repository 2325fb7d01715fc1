// /compact: asks the server to summarise older turns now (session/compact). A server without the
// method says so, and the agent still compacts by itself when its context fills.
import { AgentProtocolError } from "../../protocol/agent/json-rpc.ts";
import { errorAction } from "../hooks/use-agent-session.ts";
import { formatTokens } from "../views/status-line.tsx";
import { notice, type SlashCommand } from "./slash-command.ts";

export const compactCommand: SlashCommand = {
  name: "compact",
  description: "summarise older turns now to free context",
  async run(_args, context) {
    try {
      const result = await context.client.request("session/compact", {
        sessionId: context.sessionId,
      });
      if (!result.compacted) {
        notice(context, "Nothing to compact yet.");
        return;
      }
      const sizes =
        result.tokensBefore === undefined || result.tokensAfter === undefined
          ? ""
          : `: ${formatTokens(result.tokensBefore)} → ${formatTokens(result.tokensAfter)} tokens`;
      notice(context, `Compacted older turns${sizes}.`);
    } catch (error) {
      if (error instanceof AgentProtocolError && error.code === "method_not_found") {
        notice(
          context,
          "This server cannot compact on request yet; the agent compacts older turns by itself when the context fills.",
          "warning",
        );
        return;
      }
      context.dispatch(errorAction(error));
    }
  },
};
