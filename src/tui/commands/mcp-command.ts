// /mcp: the MCP servers the agent server started (mcp/list), each one's state and the tools the
// model sees from it, or why it has none.
import { errorAction } from "../hooks/use-agent-session.ts";
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
      const lines = servers.map((server) => {
        if (server.state === "ready") {
          const tools = server.tools.map((tool) => `${server.name}__${tool}`).join(", ");
          return `  ${server.name}: ready, ${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}${tools === "" ? "" : ` (${tools})`}`;
        }
        const retry =
          server.retryInMs === undefined
            ? ""
            : `; retrying in ${Math.ceil(server.retryInMs / 1000)} s`;
        return `  ${server.name}: ${server.state}${server.error === undefined ? "" : ` (${server.error})`}${retry}`;
      });
      const broken = servers.some(
        (server) => server.state === "failed" || server.state === "restarting",
      );
      notice(context, `MCP servers:\n${lines.join("\n")}`, broken ? "warning" : "info");
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};
