// An MCP server's state in words, as `spark mcp list` says it: in full for /mcp (with the tool
// names the model sees and what to do about a server that has none), in brief for /status.
import type { AgentMethodResult } from "../../protocol/agent/agent-methods.ts";

export type McpServerRow = AgentMethodResult<"mcp/list">["servers"][number];

/** The server's state in words, as `spark mcp list` says it, with the model's tool names. */
export function describeMcpServer(server: McpServerRow): string {
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

/** One server in a few words, for /status's MCP row. */
export function describeMcpServerBriefly(server: McpServerRow): string {
  switch (server.state) {
    case "ready":
      return `${server.name} ready (${server.tools.length} tool${server.tools.length === 1 ? "" : "s"})`;
    case "needs-consent":
      return `${server.name} not started (declared by this project; see /mcp)`;
    case "disabled":
      return `${server.name} disabled`;
    default:
      return `${server.name} ${server.state}${server.error === undefined ? "" : ` (${server.error})`}`;
  }
}
