// /mcp: the MCP servers the agent server started (mcp/list), each one's state and the tools the
// model sees from it, or why it has none and what to do about it.
import { errorAction } from "../hooks/use-agent-session.ts";
import type { AgentMethodResult } from "../../protocol/agent/agent-methods.ts";
import { notice, type SlashCommand } from "./slash-command.ts";

type McpServerRow = AgentMethodResult<"mcp/list">["servers"][number];

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
      const lines = servers.map((server) => `  ${server.name}: ${describeServer(server)}`);
      const broken = servers.some((server) =>
        ["failed", "restarting", "needs-consent"].includes(server.state),
      );
      notice(context, `MCP servers:\n${lines.join("\n")}`, broken ? "warning" : "info");
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};

/** The server's state in words, as `spark mcp list` says it, with the model's tool names. */
function describeServer(server: McpServerRow): string {
  const why = server.error === undefined ? "" : ` (${server.error})`;
  switch (server.state) {
    case "ready": {
      const count = `${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}`;
      const tools = server.tools.map((tool) => `${server.name}__${tool}`).join(", ");
      return `ready, ${count}${tools === "" ? "" : ` (${tools})`}`;
    }
    case "starting":
      // A restart after a failure starts again; the failure stays worth showing until it is up.
      return server.failures === 0 ? "starting" : `starting again after a failure${why}`;
    case "restarting":
      return `restarting${why}${server.retryInMs === undefined ? "" : `; retrying in ${Math.ceil(server.retryInMs / 1000)} s`}`;
    case "failed":
      return `failed${why}${server.failures > 1 ? `; not restarted again after ${server.failures} attempts in a row` : ""}`;
    case "disabled":
      return "disabled (enabled = false)";
    case "needs-consent":
      return `not started: this project's config declares it; to run it, add "${server.name}" to [mcp] trusted_project_servers in your own config`;
    default:
      return `${server.state}${why}`;
  }
}
