// Completions under the input box (slash commands, @-file paths); the selected one is highlighted.
import { Box, Text } from "ink";

export interface Suggestion {
  /** What the input becomes (or the replaced word becomes) when it is accepted. */
  value: string;
  label: string;
  detail?: string;
}

export const MAX_VISIBLE_SUGGESTIONS = 8;

export function SuggestionList({
  suggestions,
  selected,
}: {
  suggestions: Suggestion[];
  selected: number;
}) {
  const start = Math.max(
    0,
    Math.min(selected - MAX_VISIBLE_SUGGESTIONS + 1, suggestions.length - MAX_VISIBLE_SUGGESTIONS),
  );
  const visible = suggestions.slice(start, start + MAX_VISIBLE_SUGGESTIONS);
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {visible.map((suggestion, index) => {
        const isSelected = start + index === selected;
        return (
          <Text key={suggestion.value} color={isSelected ? "cyan" : undefined} wrap="truncate-end">
            {isSelected ? "▸ " : "  "}
            {suggestion.label}
            {suggestion.detail === undefined ? null : <Text dimColor> {suggestion.detail}</Text>}
          </Text>
        );
      })}
      {suggestions.length > visible.length ? (
        <Text dimColor> … {suggestions.length - visible.length} more</Text>
      ) : null}
    </Box>
  );
}
