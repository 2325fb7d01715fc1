// /mcp: the MCP servers the agent server started (mcp/list), each one's state and the tools the
// model sees from it, or why it has none and what to do about it.
import { errorAction } from "../hooks/use-agent-session.ts";
import { describeMcpServer } from "./mcp-server-words.ts";
import { notice, type SlashCommand } from "./slash-command.ts";

export const mcpCommand: SlashCommand = {
  name: "mcp",
  description: "MCP servers: state and tools",
  async run(_args, context) {
    try {
      const { servers } = await context.client.request("mcp/list", {});
      if (servers.length === 0) {
        notice(
          context,
          "No MCP servers configured ([mcp_servers.<name>] in ~/.spark/config.toml).",
        );
        return;
      }
      const lines = servers.map((server) => `  ${server.name}: ${describeMcpServer(server)}`);
      const broken = servers.some((server) =>
        ["failed", "restarting", "needs-consent"].includes(server.state),
      );
      notice(context, `MCP servers:\n${lines.join("\n")}`, broken ? "warning" : "info");
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};
