// A unified diff in colour: additions green, removals red, hunk headers cyan, file headers dim.
import { Box, Text } from "ink";

export function DiffView({ unifiedDiff }: { unifiedDiff: string }) {
  const lines = unifiedDiff.replace(/\n$/, "").split("\n");
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {lines.map((line, index) => (
        <Text key={index} {...diffLineStyle(line)}>
          {line === "" ? " " : line}
        </Text>
      ))}
    </Box>
  );
}

function diffLineStyle(line: string): { color?: string; dimColor?: boolean } {
  if (
    line.startsWith("+++") ||
    line.startsWith("---") ||
    line.startsWith("Index:") ||
    line.startsWith("=====")
  )
    return { dimColor: true };
  if (line.startsWith("@@")) return { color: "cyan" };
  if (line.startsWith("+")) return { color: "green" };
  if (line.startsWith("-")) return { color: "red" };
  if (line.startsWith("\\")) return { dimColor: true };
  return {};
}
