// Spark's ChatMessage list to Chat Completions messages: tool calls and tool results keep the
// ids that tie them together, and an assistant turn with tool calls keeps its (possibly empty) text.
import type { ChatMessage } from "../engine.ts";
import type { ChatCompletionsMessage } from "./chat-completions-wire.ts";

export function convertToChatMessages(messages: ChatMessage[]): ChatCompletionsMessage[] {
  return messages.map((message): ChatCompletionsMessage => {
    switch (message.role) {
      case "system":
      case "user":
        return { role: message.role, content: message.content };
      case "assistant": {
        if (message.toolCalls === undefined || message.toolCalls.length === 0) {
          return { role: "assistant", content: message.content };
        }
        return {
          role: "assistant",
          content: message.content,
          tool_calls: message.toolCalls.map((toolCall) => ({
            id: toolCall.id,
            type: "function",
            function: { name: toolCall.name, arguments: toolCall.arguments },
          })),
        };
      }
      case "tool":
        // `name` is not part of the tool message in the API; strict servers reject it.
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
      default:
        return message satisfies never;
    }
  });
}
