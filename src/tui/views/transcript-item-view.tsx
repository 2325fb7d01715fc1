// One transcript item, rendered once: user messages, answer text, one line per tool call, edits
// as coloured diffs with their path, interrupts and errors in words a person can act on.
import { Box, Text } from "ink";
import type { TranscriptItem } from "../state/transcript-item.ts";
import { AnswerLineView } from "./answer-line.tsx";
import { DiffView } from "./diff-view.tsx";
import { SessionHeader } from "./session-header.tsx";

export function TranscriptItemView({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case "user":
      return (
        <Box marginTop={1}>
          <Text color="blue" bold>
            {item.via === "steer" ? "↪ steer › " : item.via === "queue" ? "⏭ queued › " : "› "}
          </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case "assistant":
      return <AnswerLineView line={item} />;
    case "tool-call":
      return (
        <Box flexDirection="column">
          <Text>
            <Text color={toolColor(item.status)}>{toolMark(item.status)} </Text>
            <Text dimColor={item.status !== "failed"}>{item.summary}</Text>
            {item.durationMs === undefined ? null : (
              <Text dimColor> {Math.round(item.durationMs)} ms</Text>
            )}
            {item.commandOutcome === undefined ? null : (
              <Text
                color={item.status === "failed" ? "red" : undefined}
                dimColor={item.status !== "failed"}
              >
                {" "}
                · {item.commandOutcome.status}
              </Text>
            )}
            {item.errorLine === undefined ? null : <Text color="red"> — {item.errorLine}</Text>}
          </Text>
          {item.commandOutcome === undefined ||
          item.commandOutcome.lines.length <= item.commandOutcome.tail.length ? null : (
            <Text dimColor>
              {"  "}… {item.commandOutcome.lines.length - item.commandOutcome.tail.length} earlier
              lines · Ctrl+T shows all
            </Text>
          )}
          {item.commandOutcome?.tail.map((line, index) => (
            <Text key={index} dimColor>
              {"  "}
              {line}
            </Text>
          ))}
        </Box>
      );
    case "edit":
      return (
        <Box flexDirection="column">
          <Text>
            <Text color="magenta" bold>
              {editVerb(item.editKind)} {item.path}
            </Text>
            {item.movedFrom === undefined ? null : <Text dimColor> (from {item.movedFrom})</Text>}
            <Text color="green"> +{item.linesAdded}</Text>
            <Text color="red"> -{item.linesRemoved}</Text>
          </Text>
          <DiffView unifiedDiff={item.unifiedDiff} />
        </Box>
      );
    case "undo":
      return (
        <Box flexDirection="column">
          <Text color="magenta" bold>
            ↶ Undid the last edit:
          </Text>
          {item.files.map((file) => (
            <Box key={file.path} flexDirection="column">
              <Text>
                {"  "}
                {file.action} {file.path}
              </Text>
              {file.unifiedDiff === "" ? null : <DiffView unifiedDiff={file.unifiedDiff} />}
            </Box>
          ))}
        </Box>
      );
    case "interrupted":
      return <Text color="yellow">⏹ interrupted{item.reason === "steer" ? " (steered)" : ""}</Text>;
    case "error":
      return (
        <Text color="red">
          ✗ {item.message}
          {item.code === undefined ? "" : ` [${item.code}]`}
        </Text>
      );
    case "session-header":
      return <SessionHeader header={item} />;
    case "notice":
      return <Text color={item.tone === "warning" ? "yellow" : "gray"}>{item.text}</Text>;
    case "command-output":
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>Output of {item.summary}:</Text>
          {item.lines.map((line, index) => (
            <Text key={index}>
              {"  "}
              {line}
            </Text>
          ))}
        </Box>
      );
    case "history":
      return (
        <Text dimColor>
          {item.role === "user" ? "› " : item.role === "tool" ? "  ⚙ " : "● "}
          {item.text}
        </Text>
      );
    default:
      item satisfies never;
      return null;
  }
}

function toolMark(status: "running" | "done" | "failed"): string {
  return status === "running" ? "⋯" : status === "done" ? "✓" : "✗";
}

function toolColor(status: "running" | "done" | "failed"): string {
  return status === "running" ? "yellow" : status === "done" ? "green" : "red";
}

function editVerb(kind: "add" | "delete" | "update" | "move"): string {
  return { add: "Added", delete: "Deleted", update: "Edited", move: "Moved" }[kind];
}
