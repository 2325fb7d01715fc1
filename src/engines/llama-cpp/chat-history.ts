// Converts Spark messages to node-llama-cpp chat history: tool calls and their results fold into
// the model response that made them, which is how node-llama-cpp's chat wrappers render them.
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from "node-llama-cpp";
import type { ChatMessage } from "../engine.ts";

export function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const pendingCalls = new Map<string, ChatModelFunctionCall>();
  const lastModelResponse = (): ChatModelResponse => {
    const last = history.at(-1);
    if (last?.type === "model") return last;
    const created: ChatModelResponse = { type: "model", response: [] };
    history.push(created);
    return created;
  };

  for (const message of messages) {
    switch (message.role) {
      case "system":
        history.push({ type: "system", text: message.content });
        break;
      case "user":
        history.push({ type: "user", text: message.content });
        break;
      case "assistant": {
        const response = lastModelResponse();
        if (message.content !== "") response.response.push(message.content);
        for (const call of message.toolCalls ?? []) {
          const functionCall: ChatModelFunctionCall = {
            type: "functionCall",
            name: call.name,
            params: parseArguments(call.arguments),
            result: undefined,
          };
          pendingCalls.set(call.id, functionCall);
          response.response.push(functionCall);
        }
        break;
      }
      case "tool": {
        const call = pendingCalls.get(message.toolCallId);
        if (call !== undefined) {
          call.result = message.content;
          pendingCalls.delete(message.toolCallId);
        } else {
          // A result without its call (e.g. history trimmed): keep it visible as user text.
          history.push({
            type: "user",
            text: `Tool result (${message.name ?? message.toolCallId}):\n${message.content}`,
          });
        }
        break;
      }
      default:
        message satisfies never;
    }
  }
  return history;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
