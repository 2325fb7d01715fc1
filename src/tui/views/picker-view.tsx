// A list to pick one entry from (/resume, /model): arrows move, Enter picks, Esc cancels.
import { Box, Text } from "ink";
import { SuggestionList, type Suggestion } from "./suggestion-list.tsx";

export function PickerView({
  title,
  options,
  selected,
}: {
  title: string;
  options: Suggestion[];
  selected: number;
}) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold>{title}</Text>
      {options.length === 0 ? (
        <Text dimColor>(nothing to pick)</Text>
      ) : (
        <SuggestionList suggestions={options} selected={selected} />
      )}
      <Text dimColor>↑/↓ move · Enter pick · Esc cancel</Text>
    </Box>
  );
}
