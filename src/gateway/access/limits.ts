// Input size limits: an estimate of a conversation's tokens (about four characters a token, as
// no tokenizer is exposed by the Engine interface) checked against the server's context limit.
import type { ChatMessage, ToolDefinition } from "../../engines/engine.ts";
import { WireError } from "../wire/wire-error.ts";

export function estimateInputTokens(
  messages: ChatMessage[],
  tools: ToolDefinition[] | undefined,
): number {
  let characters = 0;
  for (const message of messages) {
    characters += message.content.length + 16;
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? [])
        characters += call.name.length + call.arguments.length;
    }
  }
  for (const tool of tools ?? []) characters += JSON.stringify(tool).length;
  return Math.ceil(characters / 4);
}

export function checkContextLimit(
  messages: ChatMessage[],
  tools: ToolDefinition[] | undefined,
  contextLimitTokens: number,
): void {
  const estimate = estimateInputTokens(messages, tools);
  if (estimate <= contextLimitTokens) return;
  throw new WireError(
    "context_length_exceeded",
    `The input is about ${estimate} tokens, over this server's limit of ${contextLimitTokens} (context_limit_tokens). ` +
      "Start a new conversation, shorten the input, or raise the limit in [serve].",
    { param: "input" },
  );
}
