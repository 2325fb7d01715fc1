// The conversation so far, for a client that attaches without events to replay: user and assistant
// text and tool output, shortened, without the system message.
import type { TranscriptMessage } from "../agent/transcript.ts";
import type { HistoryItem } from "../protocol/agent/agent-methods.ts";

/** Tool output beyond this is cut for display; the model saw it whole. */
const TOOL_OUTPUT_CHARACTERS = 2_000;

export function historyFromTranscript(transcript: readonly TranscriptMessage[]): HistoryItem[] {
  const items: HistoryItem[] = [];
  for (const message of transcript) {
    switch (message.role) {
      case "system":
        break;
      case "user":
        items.push({ role: "user", text: message.content });
        break;
      case "assistant": {
        const calls = (message.toolCalls ?? []).map((call) => `→ ${call.name} ${call.arguments}`);
        const text = [message.content, ...calls].filter((part) => part !== "").join("\n");
        if (text !== "") items.push({ role: "assistant", text });
        break;
      }
      case "tool":
        items.push({ role: "tool", text: shorten(message.content) });
        break;
      default:
        message satisfies never;
    }
  }
  return items;
}

function shorten(text: string): string {
  return text.length <= TOOL_OUTPUT_CHARACTERS
    ? text
    : `${text.slice(0, TOOL_OUTPUT_CHARACTERS)}\n… (${text.length - TOOL_OUTPUT_CHARACTERS} more characters)`;
}
