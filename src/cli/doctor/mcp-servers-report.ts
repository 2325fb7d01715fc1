// `spark doctor`'s MCP part: each configured server started once (probeMcpServers), a line per
// server, and a finding for each that is broken (error) or waits for the user's consent (warning).
import { describeMcpStatus } from "../../agent/mcp/describe-mcp-status.ts";
import type { McpServerStatus } from "../../agent/mcp/mcp-server-connection.ts";
import type { Finding } from "./doctor-report.ts";

const marks: Record<McpServerStatus["state"], string> = {
  ready: "ok",
  starting: "WARN",
  restarting: "WARN",
  failed: "FAIL",
  disabled: "skip",
  "needs-consent": "WARN",
  closed: "skip",
};

export function formatMcpServers(statuses: readonly McpServerStatus[] | undefined): string[] {
  if (statuses === undefined || statuses.length === 0) return [];
  return [
    "MCP servers:",
    ...statuses.map((status) => `  ${marks[status.state].padEnd(4)} ${describeMcpStatus(status)}`),
  ];
}

export function mcpServerFindings(statuses: readonly McpServerStatus[]): Finding[] {
  return statuses.flatMap((status): Finding[] => {
    switch (status.state) {
      case "failed":
        return [
          {
            status: "error",
            message: `MCP server "${status.name}" does not start: ${status.error ?? "unknown"}. Check its command (or url) under [mcp_servers.${status.name}], or set enabled = false.`,
          },
        ];
      case "starting":
        return [
          {
            status: "warning",
            message: `MCP server "${status.name}" was still starting after its startup timeout.`,
          },
        ];
      case "needs-consent":
        return [{ status: "warning", message: describeMcpStatus(status) }];
      default:
        return [];
    }
  });
}
