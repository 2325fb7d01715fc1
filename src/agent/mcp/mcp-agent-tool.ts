// An MCP server's tool as an agent tool: offered as `<server>__<tool>` with the server's own input
// schema, each call approved like a command the user did not ask for (unless the user's config
// auto-approves the server or the tool), run under the server's timeout, its result as text.
// Failures (timeout, a server that exits mid-call) come back as tool errors: the turn goes on.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { SparkError } from "../../protocol/spark-error.ts";
import type { AgentTool, ToolResult } from "../tools/agent-tool.ts";
import { decideToolCall } from "../approval/command-approval.ts";
import { mcpResultText } from "./mcp-result-text.ts";
import type { McpServerConnection } from "./mcp-server-connection.ts";
import { qualifiedToolName } from "./mcp-tool-name.ts";

const MAX_SUMMARY_ARGUMENTS = 160;
const argumentsSchema = z.record(z.string(), z.unknown());

export function createMcpAgentTool(connection: McpServerConnection, tool: Tool): AgentTool {
  const name = qualifiedToolName(connection.name, tool.name);
  const parameters: Record<string, unknown> = { ...tool.inputSchema };
  delete parameters.$schema;
  const description = `${tool.description ?? tool.title ?? tool.name} (MCP server "${connection.name}", tool "${tool.name}")`;
  return {
    name,
    definition: { name, description, parameters },
    keep: "head",
    parameters: argumentsSchema,
    prepare(argumentsJson) {
      let parsed: unknown;
      try {
        parsed = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
      } catch (error) {
        return {
          error: `The arguments for ${name} are not valid JSON (${(error as Error).message}). Send one JSON object matching the tool's parameters.`,
        };
      }
      const args = argumentsSchema.safeParse(parsed);
      if (!args.success)
        return { error: `The arguments for ${name} must be one JSON object. Fix the call.` };
      const argumentsText = JSON.stringify(args.data);
      return {
        summary: `${name} ${shorten(argumentsText)}`,
        run: async (context) => {
          const approvedByConfig =
            connection.config.autoApprove || connection.config.autoApproveTools.includes(tool.name);
          if (!approvedByConfig) {
            const decision = await decideToolCall(
              context.commandApproval,
              {
                command: `${name} ${argumentsText}`,
                cwd: context.workspaceRoot,
                alwaysKey: `mcp:${name}`,
                mcpTool: { server: connection.name, tool: tool.name },
                reason: `calls to MCP tools need approval (auto_approve_tools = ["${tool.name}"] under [mcp_servers.${connection.name}] in the user's own config approves this one)`,
              },
              context.signal,
            );
            if (!decision.approved) {
              return {
                output: `not approved: ask the user. ${name} was not called: ${decision.reason}. Say what you want to call and why, and wait for the user's answer.`,
                isError: true,
              };
            }
          }
          return callTool(connection, tool.name, args.data, context.signal);
        },
      };
    },
  };
}

async function callTool(
  connection: McpServerConnection,
  toolName: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ToolResult> {
  // Timed from here: the wait for the user's approval is not the call's run time.
  const startedAt = performance.now();
  try {
    const result = await connection.callTool(toolName, args, signal);
    const text = mcpResultText(result);
    return {
      output: text,
      ...(result.isError === true ? { isError: true } : {}),
      runMs: performance.now() - startedAt,
    };
  } catch (error) {
    const runMs = performance.now() - startedAt;
    if (signal.aborted)
      return { output: "Interrupted by the user before the tool finished.", isError: true, runMs };
    return { output: SparkError.from(error).message, isError: true, runMs };
  }
}

function shorten(text: string): string {
  return text.length > MAX_SUMMARY_ARGUMENTS ? `${text.slice(0, MAX_SUMMARY_ARGUMENTS)}…` : text;
}
