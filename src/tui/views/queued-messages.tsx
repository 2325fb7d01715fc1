// Messages queued for after the running turn, above the input until each is sent, as Codex shows
// them; the last line says how to take one back.
import { Box, Text } from "ink";

export function QueuedMessages({ messages }: { messages: readonly string[] }) {
  if (messages.length === 0) return null;
  return (
    <Box flexDirection="column" paddingLeft={1}>
      {messages.map((message, index) => (
        <Text key={index} dimColor wrap="truncate-end">
          ↳ queued: {message.split("\n", 1)[0]}
          {message.includes("\n") ? " …" : ""}
        </Text>
      ))}
      <Text dimColor>
        {" "}
        Alt+↑ edit the last queued message · an interrupt (Esc) puts them all back
      </Text>
    </Box>
  );
}
