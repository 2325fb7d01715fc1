// Builds the Responses API request for an engine request: instructions from the system messages,
// and either the whole conversation or, when the gateway already holds its start (the previous
// completed response), only what is new plus previous_response_id.
import type { ChatMessage, EngineRequest } from "../../engines/engine.ts";
import type { InputItem, ResponseCreateBody } from "../../protocol/responses-requests.ts";

/** What the gateway stores for a completed response: its conversation, reply included. */
export interface ResponseChain {
  responseId: string;
  messages: ChatMessage[];
}

export interface BuiltBody {
  body: ResponseCreateBody;
  /** The conversation (without system messages) the gateway will hold once this response exists. */
  conversation: ChatMessage[];
}

export function buildResponsesBody(
  request: EngineRequest,
  chain: ResponseChain | undefined,
): BuiltBody {
  const instructions = request.messages
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n\n");
  const conversation = request.messages.filter((message) => message.role !== "system");
  const chained = chain !== undefined && startsWith(conversation, chain.messages);
  const input = (chained ? conversation.slice(chain.messages.length) : conversation).flatMap(
    toInputItems,
  );
  const body: ResponseCreateBody = { input, store: true };
  if (request.model !== undefined) body.model = request.model;
  if (instructions !== "") body.instructions = instructions;
  if (chained) body.previous_response_id = chain.responseId;
  if (request.sessionKey !== undefined) body.prompt_cache_key = request.sessionKey;
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters,
      strict: false,
    }));
  }
  const sampling = request.sampling ?? {};
  if (sampling.maxOutputTokens !== undefined) body.max_output_tokens = sampling.maxOutputTokens;
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  return { body, conversation };
}

function toInputItems(message: ChatMessage): InputItem[] {
  switch (message.role) {
    case "system":
    case "user":
      return [{ type: "message", role: message.role, content: message.content }];
    case "assistant": {
      const items: InputItem[] = [];
      if (message.content !== "" || (message.toolCalls ?? []).length === 0) {
        items.push({ type: "message", role: "assistant", content: message.content });
      }
      for (const call of message.toolCalls ?? []) {
        items.push({
          type: "function_call",
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
        });
      }
      return items;
    }
    case "tool":
      return [
        { type: "function_call_output", call_id: message.toolCallId, output: message.content },
      ];
    default:
      message satisfies never;
      return [];
  }
}

function startsWith(conversation: readonly ChatMessage[], prefix: readonly ChatMessage[]): boolean {
  if (prefix.length === 0 || prefix.length > conversation.length) return false;
  return prefix.every((message, index) => sameMessage(message, conversation[index]));
}

function sameMessage(left: ChatMessage, right: ChatMessage | undefined): boolean {
  if (right === undefined || left.role !== right.role || left.content !== right.content)
    return false;
  if (left.role === "tool" && right.role === "tool") return left.toolCallId === right.toolCallId;
  if (left.role === "assistant" && right.role === "assistant") {
    const leftCalls = left.toolCalls ?? [];
    const rightCalls = right.toolCalls ?? [];
    return (
      leftCalls.length === rightCalls.length &&
      leftCalls.every(
        (call, index) =>
          call.id === rightCalls[index]?.id &&
          call.name === rightCalls[index]?.name &&
          call.arguments === rightCalls[index]?.arguments,
      )
    );
  }
  return true;
}
