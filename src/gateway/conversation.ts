// Responses input items ↔ Spark ChatMessages: messages, function calls and their outputs become
// the engine's conversation; anything a text engine cannot take is refused with the reason.
import type { ChatMessage, ToolDefinition } from "../engines/engine.ts";
import type {
  InputItem,
  ResponseInput,
  ResponseTool,
  ResponseToolChoice,
} from "../protocol/responses-requests.ts";
import { WireError } from "./wire-error.ts";

type ContentParts = string | Array<{ type: string; text?: string | undefined }>;

export function inputToMessages(input: ResponseInput | undefined): ChatMessage[] {
  if (input === undefined) return [];
  if (typeof input === "string") return [{ role: "user", content: input }];
  const messages: ChatMessage[] = [];
  const toolNames = new Map<string, string>();
  input.forEach((item, index) => appendItem(messages, toolNames, item, `input[${index}]`));
  return messages;
}

function appendItem(
  messages: ChatMessage[],
  toolNames: Map<string, string>,
  item: InputItem,
  param: string,
): void {
  if ("role" in item && (item.type === undefined || item.type === "message")) {
    const content = textOf(item.content as ContentParts, `${param}.content`);
    const role = item.role === "developer" ? "system" : item.role;
    messages.push({ role, content } as ChatMessage);
    return;
  }
  switch (item.type) {
    case "function_call": {
      const call = item as { call_id: string; name: string; arguments: string };
      toolNames.set(call.call_id, call.name);
      const toolCall = { id: call.call_id, name: call.name, arguments: call.arguments };
      const previous = messages.at(-1);
      // Text and the calls that follow it are one assistant turn to the model.
      if (previous?.role === "assistant")
        previous.toolCalls = [...(previous.toolCalls ?? []), toolCall];
      else messages.push({ role: "assistant", content: "", toolCalls: [toolCall] });
      return;
    }
    case "function_call_output": {
      const output = item as { call_id: string; output: ContentParts };
      const name = toolNames.get(output.call_id);
      const content = textOf(output.output, `${param}.output`);
      messages.push({
        role: "tool",
        toolCallId: output.call_id,
        content,
        ...(name === undefined ? {} : { name }),
      });
      return;
    }
    case "reasoning":
      // Reasoning items are the model's own scratch work; a text engine is not fed them back.
      return;
    case "item_reference":
      throw new WireError(
        "invalid_request",
        `${param}: item_reference is not supported; send previous_response_id, or the item itself.`,
        { param },
      );
    default:
      throw new WireError(
        "invalid_request",
        `${param}: input items of type '${String(item.type)}' are not supported; Spark takes messages, function_call and function_call_output items.`,
        { param },
      );
  }
}

function textOf(content: ContentParts, param: string): string {
  if (typeof content === "string") return content;
  let text = "";
  content.forEach((part, index) => {
    if (
      (part.type === "input_text" || part.type === "output_text" || part.type === "text") &&
      part.text !== undefined
    ) {
      text += part.text;
      return;
    }
    throw new WireError(
      "invalid_request",
      `${param}[${index}]: content parts of type '${part.type}' are not supported; Spark's engines take text (input_text).`,
      { param: `${param}[${index}]` },
    );
  });
  return text;
}

export function toEngineTools(
  tools: ResponseTool[] | undefined,
  toolChoice: ResponseToolChoice | undefined,
): ToolDefinition[] | undefined {
  if (tools === undefined || tools.length === 0 || toolChoice === "none") return undefined;
  return tools.map((tool, index) => {
    if (tool.type !== "function" || tool.name === undefined) {
      throw new WireError(
        "invalid_request",
        `tools[${index}]: '${tool.type}' tools are hosted by OpenAI; Spark runs function tools only (type: "function" with a name).`,
        { param: `tools[${index}]` },
      );
    }
    const definition: ToolDefinition = {
      name: tool.name,
      parameters: tool.parameters ?? { type: "object", properties: {} },
    };
    if (typeof tool.description === "string") definition.description = tool.description;
    return definition;
  });
}
