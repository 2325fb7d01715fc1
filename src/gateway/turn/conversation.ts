// Responses input items ↔ Spark ChatMessages: messages, function calls and their outputs become
// the engine's conversation; anything a text engine cannot take is refused with the reason.
import type { ChatMessage, ToolCall } from "../../engines/engine.ts";
import type { ResponseOutputItem } from "../../protocol/responses-events.ts";
import type { InputItem, ResponseInput } from "../../protocol/responses-requests.ts";
import { customToolArguments, engineToolName } from "./request-tools.ts";
import { WireError } from "../wire/wire-error.ts";

type ContentParts = string | Array<{ type: string; text?: string | undefined }>;

/** Finds an earlier output item by id (for `item_reference`); undefined when it is not held. */
export type ItemResolver = (id: string) => ResponseOutputItem | undefined;

export function inputToMessages(
  input: ResponseInput | undefined,
  resolveItem: ItemResolver = () => undefined,
): ChatMessage[] {
  if (input === undefined) return [];
  if (typeof input === "string") return [{ role: "user", content: input }];
  const messages: ChatMessage[] = [];
  const toolNames = new Map<string, string>();
  const reasoning: PendingReasoning = { text: "" };
  input.forEach((item, index) => {
    const param = `input[${index}]`;
    const resolved = dereference(item, resolveItem, param);
    if (resolved.type === "reasoning") reasoning.text += reasoningTextOf(resolved);
    else appendItem(messages, toolNames, resolved, param, reasoning);
  });
  return messages;
}

/** The ids `item_reference` items name, so they can be fetched from the store in one go. */
export function referencedItemIds(input: ResponseInput | undefined): string[] {
  if (input === undefined || typeof input === "string") return [];
  const ids: string[] = [];
  for (const item of input)
    if (item.type === "item_reference") ids.push((item as { id: string }).id);
  return ids;
}

/** An `item_reference` becomes the output item it names, as the input item it would be. */
function dereference(item: InputItem, resolveItem: ItemResolver, param: string): InputItem {
  if (item.type !== "item_reference") return item;
  const id = (item as { id: string }).id;
  const found = resolveItem(id);
  if (found === undefined) {
    throw new WireError(
      "invalid_request",
      `${param}: item '${id}' referenced by item_reference is not held here (unknown, expired, or from a response that was not stored); send the item itself.`,
      { param, wireCode: "item_not_found", status: 404 },
    );
  }
  return found as unknown as InputItem;
}

/** Reasoning items seen since the last assistant turn: they belong to the next one. */
interface PendingReasoning {
  text: string;
}

/** A reasoning item's text: its reasoning_text content (open models), else its summary. */
function reasoningTextOf(item: InputItem): string {
  const { content, summary } = item as {
    content?: Array<{ text?: unknown }> | null;
    summary?: Array<{ text?: unknown }> | null;
  };
  const parts = Array.isArray(content) && content.length > 0 ? content : (summary ?? []);
  if (!Array.isArray(parts)) return "";
  return parts.map((part) => (typeof part.text === "string" ? part.text : "")).join("");
}

function appendItem(
  messages: ChatMessage[],
  toolNames: Map<string, string>,
  item: InputItem,
  param: string,
  reasoning: PendingReasoning,
): void {
  if ("role" in item && (item.type === undefined || item.type === "message")) {
    const content = textOf(item.content as ContentParts, `${param}.content`);
    const role = item.role === "developer" ? "system" : item.role;
    const message = { role, content } as ChatMessage;
    if (message.role === "assistant") takeReasoning(message, reasoning);
    else reasoning.text = "";
    messages.push(message);
    return;
  }
  switch (item.type) {
    case "function_call": {
      const call = item as { call_id: string; name: string; namespace?: string; arguments: string };
      const name = engineToolName(call.name, call.namespace);
      appendToolCall(messages, toolNames, { id: call.call_id, name, arguments: call.arguments });
      takeReasoning(messages.at(-1), reasoning);
      return;
    }
    case "custom_tool_call": {
      const call = item as { call_id: string; name: string; namespace?: string; input: string };
      const name = engineToolName(call.name, call.namespace);
      const callArguments = customToolArguments(call.input);
      appendToolCall(messages, toolNames, { id: call.call_id, name, arguments: callArguments });
      takeReasoning(messages.at(-1), reasoning);
      return;
    }
    case "function_call_output":
    case "custom_tool_call_output": {
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
    default:
      throw new WireError(
        "invalid_request",
        `${param}: input items of type '${String(item.type)}' are not supported; Spark takes messages, function and custom tool calls and their outputs, and item_reference.`,
        { param },
      );
  }
}

/** Reasoning that came before an assistant turn goes with it, for engines whose template takes
 * it back; an engine that cannot use it leaves it out of the prompt. */
function takeReasoning(message: ChatMessage | undefined, reasoning: PendingReasoning): void {
  if (reasoning.text === "" || message?.role !== "assistant") return;
  message.reasoning = (message.reasoning ?? "") + reasoning.text;
  reasoning.text = "";
}

function appendToolCall(
  messages: ChatMessage[],
  toolNames: Map<string, string>,
  toolCall: ToolCall,
): void {
  toolNames.set(toolCall.id, toolCall.name);
  const previous = messages.at(-1);
  // Text and the calls that follow it are one assistant turn to the model.
  if (previous?.role === "assistant")
    previous.toolCalls = [...(previous.toolCalls ?? []), toolCall];
  else messages.push({ role: "assistant", content: "", toolCalls: [toolCall] });
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
