// One line per server state, the same in `spark exec`'s stderr, `spark mcp list`, `spark doctor`
// and the terminal UI's /mcp: the state, its tools or why it is not ready.
import type { McpServerStatus } from "./mcp-server-connection.ts";

export function describeMcpStatus(status: McpServerStatus): string {
  const name = `MCP server "${status.name}"`;
  switch (status.state) {
    case "ready":
      return `${name} ready: ${status.tools.length} tool${status.tools.length === 1 ? "" : "s"}${status.tools.length === 0 ? "" : ` (${status.tools.join(", ")})`}`;
    case "starting":
      return `${name} starting`;
    case "restarting":
      return `${name} failed (${status.error ?? "unknown"}); restarting in ${Math.round((status.retryInMs ?? 0) / 100) / 10} s`;
    case "failed":
      return `${name} failed: ${status.error ?? "unknown"}${status.failures > 1 ? ` (${status.failures} attempts in a row; not restarted again)` : ""}`;
    case "disabled":
      return `${name} disabled (enabled = false)`;
    case "needs-consent":
      return `${name} not started: a project's config declares it and your own config does not trust it ([mcp] trusted_project_servers)`;
    case "closed":
      return `${name} closed`;
    default:
      return status.state satisfies never;
  }
}
