// The Responses API request body for one engine request: leading system messages become
// `instructions`, the rest input items (messages, function calls and their outputs), streamed and
// not stored (Spark sends the whole conversation each time over HTTP).
import type { ChatMessage, EngineRequest } from "../engine.ts";

type InputItem =
  | { role: "user" | "assistant" | "system"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string };

export function buildResponsesRequestBody(
  request: EngineRequest,
  model: string,
): Record<string, unknown> {
  const leading: string[] = [];
  let index = 0;
  for (; index < request.messages.length; index += 1) {
    const message = request.messages[index];
    if (message?.role !== "system") break;
    leading.push(message.content);
  }
  const input = request.messages.slice(index).flatMap(toInputItems);
  const sampling = request.sampling ?? {};
  const body: Record<string, unknown> = { model, input, stream: true, store: false };
  if (leading.length > 0) body.instructions = leading.join("\n\n");
  if (sampling.maxOutputTokens !== undefined) body.max_output_tokens = sampling.maxOutputTokens;
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  // Not OpenAI's: sent only when the client asked (see build-chat-request-body.ts).
  if (sampling.topK !== undefined) body.top_k = sampling.topK;
  if (sampling.minP !== undefined) body.min_p = sampling.minP;
  if (request.sessionKey !== undefined) body.prompt_cache_key = request.sessionKey;
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
    }));
    const choice = request.toolChoice;
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === "string" ? choice : { type: "function", name: choice.name };
  }
  // OutputFormat is Responses' own `text.format` shape (name, schema, strict beside the type).
  if (request.outputFormat !== undefined) body.text = { format: { ...request.outputFormat } };
  return body;
}

function toInputItems(message: ChatMessage): InputItem[] {
  switch (message.role) {
    case "system":
    case "user":
      return [{ role: message.role, content: message.content }];
    case "assistant": {
      const calls = (message.toolCalls ?? []).map((call) => ({
        type: "function_call" as const,
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
      }));
      return message.content === ""
        ? calls
        : [{ role: "assistant", content: message.content }, ...calls];
    }
    case "tool":
      return [
        { type: "function_call_output", call_id: message.toolCallId, output: message.content },
      ];
    default:
      return message satisfies never;
  }
}
