// Asks for a run_command approval inline: the whole command, exactly as it would run, and y/n/a.
import { Box, Text } from "ink";
import type { PendingApproval } from "../state/session-view-state.ts";

export function ApprovalPrompt({ approval }: { approval: PendingApproval }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text color="yellow" bold>
        The agent wants to run a command in {approval.cwd}:
      </Text>
      <Text>{approval.command}</Text>
      <Text>
        <Text bold>y</Text> run it · <Text bold>n</Text> refuse · <Text bold>a</Text> run it, and
        this exact command again without asking in this session
      </Text>
    </Box>
  );
}
