// Starts the configured MCP servers once, waits until each is ready or has failed its first
// start (at most its startup timeout), and closes them: what `spark mcp list` and `spark doctor`
// report.
import type { McpServerConfig } from "../../config/mcp-server-config.ts";
import type { McpServerStatus } from "./mcp-server-connection.ts";
import { McpServerManager } from "./mcp-server-manager.ts";

export async function probeMcpServers(
  configs: readonly McpServerConfig[],
  signal?: AbortSignal,
): Promise<McpServerStatus[]> {
  // No restarts: each server's first attempt is what is reported.
  const manager = new McpServerManager(configs, {
    backoff: { initialMs: 0, maxMs: 0, maxFailures: 1 },
  });
  try {
    manager.start();
    const longest = Math.max(0, ...configs.map((config) => config.startupTimeoutMs));
    // A little past the longest startup timeout, so a server's own timeout is what is reported.
    await manager.settled(longest + 1_000, signal);
    return manager.statuses();
  } finally {
    await manager.close();
  }
}
