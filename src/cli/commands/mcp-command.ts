// `spark mcp list`: each configured MCP server (`[mcp_servers.<name>]`), started once here to see
// its state: ready with its tools as the model sees them, or why it is not (failed, disabled,
// waiting for the user's consent to a project's server).
import type { Command } from "commander";
import { describeMcpStatus } from "../../agent/mcp/describe-mcp-status.ts";
import { qualifiedToolName } from "../../agent/mcp/mcp-tool-name.ts";
import { probeMcpServers } from "../../agent/mcp/probe-mcp-servers.ts";
import { loadConfig } from "../../config/load-config.ts";
import { describeMcpTransport } from "../../config/mcp-server-config.ts";

export function registerMcpCommand(program: Command): void {
  const mcp = program.command("mcp").description("MCP servers the agent takes tools from");
  mcp
    .command("list")
    .description("Start each configured MCP server once and show its state and tools")
    .option("--json", "print one JSON object per server")
    .action(async (flags: { json?: boolean }) => {
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
    });
}
