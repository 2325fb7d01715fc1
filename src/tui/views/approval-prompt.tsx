// Asks for an approval inline: the whole command, exactly as it would run, or the MCP tool and its
// arguments, and y/n/a (for a tool, "a" covers every later call of it in this session).
import { Box, Text } from "ink";
import type { PendingApproval } from "../state/session-view-state.ts";

export function ApprovalPrompt({ approval }: { approval: PendingApproval }) {
  const tool = approval.mcpTool;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text color="yellow" bold>
        {tool === undefined
          ? `The agent wants to run a command in ${approval.cwd}:`
          : `The agent wants to call the tool ${tool.tool} of MCP server ${tool.server}:`}
      </Text>
      <Text>{approval.command}</Text>
      {tool === undefined ? (
        <Text>
          <Text bold>y</Text> run it · <Text bold>n</Text> refuse · <Text bold>a</Text> run it, and
          this exact command again without asking in this session
        </Text>
      ) : (
        <Text>
          <Text bold>y</Text> call it · <Text bold>n</Text> refuse · <Text bold>a</Text> call it,
          and every call of {tool.tool} without asking in this session, whatever its arguments
        </Text>
      )}
    </Box>
  );
}
