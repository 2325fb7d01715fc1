// A cheap token estimate (about four characters a token) for budgeting when the engine has not
// reported usage yet; good enough to decide when to trim, never used for billing.
import type { ToolDefinition } from "../../engines/engine.ts";
import type { TranscriptMessage } from "../transcript.ts";

const CHARACTERS_PER_TOKEN = 4;
/** Role markers and separators a chat template adds around each message. */
const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}

export function estimateMessageTokens(message: TranscriptMessage): number {
  let characters = message.content.length;
  if (message.role === "assistant") {
    for (const call of message.toolCalls ?? [])
      characters += call.name.length + call.arguments.length;
  }
  return MESSAGE_OVERHEAD_TOKENS + Math.ceil(characters / CHARACTERS_PER_TOKEN);
}

export function estimateMessagesTokens(messages: readonly TranscriptMessage[]): number {
  return messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
}

export function estimateToolsTokens(tools: readonly ToolDefinition[]): number {
  return estimateTextTokens(JSON.stringify(tools));
}
