// The input line: what the user is typing with its cursor, and a hint that says what Enter, Tab
// and Esc do right now (they differ while a turn runs).
import { Box, Text } from "ink";

export interface InputBoxProps {
  value: string;
  cursor: number;
  running: boolean;
  /** A one-line message under the input (e.g. "Press Ctrl+C again to quit"). */
  hint?: string | undefined;
}

export function InputBox({ value, cursor, running, hint }: InputBoxProps) {
  const before = value.slice(0, cursor);
  const atCursor = value.slice(cursor, cursor + 1) || " ";
  const after = value.slice(cursor + 1);
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={running ? "green" : "gray"} paddingX={1}>
        <Text color="blue" bold>
          {running ? "steer › " : "› "}
        </Text>
        <Text>
          {before}
          <Text inverse>{atCursor}</Text>
          {after}
        </Text>
      </Box>
      <Text dimColor>
        {hint ??
          (running
            ? "Esc interrupt · Enter steer · Tab queue for after the turn"
            : "Enter send · / commands · @ files · ↑ history · Ctrl+C twice quit")}
      </Text>
    </Box>
  );
}
