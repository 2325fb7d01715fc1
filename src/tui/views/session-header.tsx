// The box a session opens with, as Codex's: which workspace the agent works in (what it may
// edit), with which model, and the session's id (what --session takes).
import { Box, Text } from "ink";
import type { TranscriptItem } from "../state/transcript-item.ts";

type Header = Extract<TranscriptItem, { kind: "session-header" }>;

export function SessionHeader({ header }: { header: Header }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1} marginTop={1}>
      <Text>
        <Text bold color="blue">
          ✻ Spark
        </Text>
        <Text dimColor>
          {"  "}
          {header.how} session {header.sessionId}
        </Text>
      </Text>
      <Field label="workspace" value={header.cwd} />
      <Field label="model" value={header.model ?? "the server's default"} />
    </Box>
  );
}

function Field({ label, value }: { label: string; value: string }) {
  return (
    <Box>
      <Box width={10} flexShrink={0}>
        <Text dimColor>{label}</Text>
      </Box>
      <Text>{value}</Text>
    </Box>
  );
}
