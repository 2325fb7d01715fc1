// `spark mcp list`: each configured MCP server (`[mcp_servers.<name>]`), started once here to see
// its state: ready with its tools as the model sees them, or why it is not (failed, disabled,
// waiting for the user's consent to a project's server). The listing is actions/mcp-action.ts.
import type { Command } from "commander";

export function registerMcpCommand(program: Command): void {
  const mcp = program.command("mcp").description("MCP servers the agent takes tools from");
  mcp
    .command("list")
    .description("Start each configured MCP server once and show its state and tools")
    .option("--json", "print one JSON object per server")
    .action(async (flags: { json?: boolean }) => {
      // Loaded only now: the MCP SDK is for this command (and the agent) alone.
      const { listMcpServers } = await import("../actions/mcp-action.ts");
      await listMcpServers(flags);
    });
}
