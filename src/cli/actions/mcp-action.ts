// `spark mcp list`'s listing: each configured server started once, its state and its tools as the
// model sees them. commands/mcp-command.ts loads it lazily.
import { describeMcpStatus } from "../../agent/mcp/describe-mcp-status.ts";
import { qualifiedToolName } from "../../agent/mcp/mcp-tool-name.ts";
import { probeMcpServers } from "../../agent/mcp/probe-mcp-servers.ts";
import { loadConfig } from "../../config/load-config.ts";
import { describeMcpTransport } from "../../config/mcp-server-config.ts";

export async function listMcpServers(flags: { json?: boolean }): Promise<void> {
  const config = await loadConfig({ cwd: process.cwd(), env: process.env, flags: {} });
  const configs = Object.values(config.mcpServers ?? {});
  if (configs.length === 0) {
    process.stdout.write(
      `No MCP servers configured. Add [mcp_servers.<name>] with command (or url) to ${config.sources[0] ?? "~/.spark/config.toml"}.\n`,
    );
    return;
  }
  const statuses = await probeMcpServers(configs);
  for (const status of statuses) {
    const server = configs.find((candidate) => candidate.name === status.name);
    const transport = server === undefined ? "" : describeMcpTransport(server.transport);
    const modelNames = status.tools.map((tool) => qualifiedToolName(status.name, tool));
    if (flags.json === true) {
      const origin = server?.origin ?? "user";
      const line = { ...status, modelToolNames: modelNames, transport, origin };
      process.stdout.write(`${JSON.stringify(line)}\n`);
      continue;
    }
    process.stdout.write(`${status.name}: ${status.state}  (${transport})\n`);
    if (status.state !== "ready") process.stdout.write(`  ${describeMcpStatus(status)}\n`);
    for (const name of modelNames) process.stdout.write(`  ${name}\n`);
  }
}
