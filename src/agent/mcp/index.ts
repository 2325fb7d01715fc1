// MCP in the agent: the per-process server manager (a registry tool source) and its status lines.
export { describeMcpStatus } from "./describe-mcp-status.ts";
export type { McpServerState, McpServerStatus } from "./mcp-server-connection.ts";
export { McpServerManager, type McpStatusListener } from "./mcp-server-manager.ts";
