// An Anthropic Messages request as the Responses body the turn machinery runs: system → the
// instructions, text / tool_use / tool_result / thinking blocks → input items, tools and
// tool_choice → function tools. Blocks a text engine cannot take are refused naming the block.
import type {
  AnthropicContentBlockParam,
  AnthropicCountTokens,
  AnthropicMessageCreate,
  AnthropicMessageParam,
  AnthropicTool,
  AnthropicToolChoice,
} from "../../../protocol/anthropic-messages.ts";
import type {
  InputItem,
  ResponseCreateBody,
  ResponseTool,
  ResponseToolChoice,
} from "../../../protocol/responses-requests.ts";
import { WireError } from "../../wire/wire-error.ts";

export interface MappedMessagesRequest {
  body: ResponseCreateBody;
  /** Applied to the engine request: the Responses body has no stop field. */
  stopSequences: string[];
  /** The client asked for thinking: the engine's reasoning streams as thinking blocks. */
  thinking: boolean;
}

/** What a tool result marked is_error says to the model, before the client's text. */
export const TOOL_ERROR_PREFIX = "Error: ";

export function toResponsesBody(request: AnthropicMessageCreate): MappedMessagesRequest {
  const base = toConversation(request);
  const body: ResponseCreateBody = {
    ...base,
    max_output_tokens: request.max_tokens,
    stream: request.stream === true,
    // Anthropic has no chaining: nothing is kept for a previous_response_id.
    store: false,
  };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.top_k !== undefined) body.top_k = request.top_k;
  return {
    body,
    stopSequences: request.stop_sequences ?? [],
    thinking: request.thinking !== undefined && request.thinking.type !== "disabled",
  };
}

/** The parts count_tokens and create share: model, conversation, instructions, tools. */
export function toConversation(request: AnthropicCountTokens): ResponseCreateBody {
  const input = request.messages.flatMap((message, index) =>
    messageItems(message, `messages[${index}]`),
  );
  const body: ResponseCreateBody = { model: request.model, input };
  const system = systemText(request.system);
  if (system !== undefined) body.instructions = system;
  const tools = (request.tools ?? []).map(toResponseTool);
  if (tools.length > 0) {
    body.tools = tools;
    const choice = request.tool_choice;
    if (choice !== undefined) {
      body.tool_choice = toResponseToolChoice(choice);
      if (choice.disable_parallel_tool_use === true) body.parallel_tool_calls = false;
    }
  }
  return body;
}

function systemText(system: AnthropicCountTokens["system"]): string | undefined {
  if (system === undefined) return undefined;
  if (typeof system === "string") return system === "" ? undefined : system;
  const text = system.map((block) => block.text).join("\n\n");
  return text === "" ? undefined : text;
}

function toResponseTool(tool: AnthropicTool): ResponseTool {
  // A server tool (web_search_20250305, bash_20250124…) names its type and has no schema: the
  // turn machinery drops it as a hosted tool the engine cannot run, and logs that once.
  if (tool.input_schema === undefined && tool.type !== undefined && tool.type !== "custom")
    return { type: tool.type, name: tool.name };
  return {
    type: "function",
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: tool.input_schema ?? { type: "object", properties: {} },
  };
}

function toResponseToolChoice(choice: AnthropicToolChoice): ResponseToolChoice {
  switch (choice.type) {
    case "auto":
    case "none":
      return choice.type;
    case "any":
      return "required";
    case "tool":
      if (choice.name === undefined)
        throw new WireError("invalid_request", "tool_choice.name: required when type is 'tool'.", {
          param: "tool_choice.name",
        });
      return { type: "function", name: choice.name };
    default:
      choice.type satisfies never;
      return "auto";
  }
}

/** One message's blocks as items, in their order; consecutive text blocks are one message, a
 * blank line apart. */
function messageItems(message: AnthropicMessageParam, param: string): InputItem[] {
  if (typeof message.content === "string")
    return [{ type: "message", role: message.role, content: message.content }];
  const items: InputItem[] = [];
  let text: string[] = [];
  const flushText = (): void => {
    if (text.length === 0) return;
    items.push({ type: "message", role: message.role, content: text.join("\n\n") });
    text = [];
  };
  message.content.forEach((block, index) => {
    const at = `${param}.content[${index}]`;
    const item = blockItem(block, message.role, at);
    if (item === "text") text.push((block as { text: string }).text);
    else if (item !== undefined) {
      flushText();
      items.push(item);
    }
  });
  flushText();
  return items;
}

function blockItem(
  block: AnthropicContentBlockParam,
  role: AnthropicMessageParam["role"],
  param: string,
): InputItem | "text" | undefined {
  switch (block.type) {
    case "text":
      return "text";
    case "tool_use": {
      requireRole(role, "assistant", block.type, param);
      const { id, name, input } = block as { id: string; name: string; input: unknown };
      return { type: "function_call", call_id: id, name, arguments: JSON.stringify(input ?? {}) };
    }
    case "tool_result": {
      requireRole(role, "user", block.type, param);
      const result = block as {
        tool_use_id: string;
        content?: string | Array<{ type: string; text?: string | undefined }>;
        is_error?: boolean;
      };
      const output = toolResultText(result.content, `${param}.content`);
      return {
        type: "function_call_output",
        call_id: result.tool_use_id,
        output: result.is_error === true ? `${TOOL_ERROR_PREFIX}${output}` : output,
      };
    }
    case "thinking": {
      const { thinking } = block as { thinking: string };
      return { type: "reasoning", content: [{ type: "reasoning_text", text: thinking }] };
    }
    // Anthropic's encrypted thinking: nothing a local model can read.
    case "redacted_thinking":
      return undefined;
    default:
      throw unsupportedBlock(block.type, param);
  }
}

/** Several text blocks are one result, a blank line apart; anything else is refused. */
function toolResultText(
  content: string | Array<{ type: string; text?: string | undefined }> | undefined,
  param: string,
): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map((part, index) => {
      if (part.type === "text" && part.text !== undefined) return part.text;
      throw unsupportedBlock(part.type, `${param}[${index}]`);
    })
    .join("\n\n");
}

function unsupportedBlock(type: string, param: string): WireError {
  const why =
    type === "image" || type === "document"
      ? `Spark's engines take text only and this model has no vision; send the ${type}'s content as text`
      : "Spark takes text, tool_use, tool_result and thinking blocks";
  return new WireError(
    "invalid_request",
    `${param}: content blocks of type '${type}' are not supported: ${why}.`,
    {
      param,
    },
  );
}

function requireRole(
  role: AnthropicMessageParam["role"],
  wanted: AnthropicMessageParam["role"],
  type: string,
  param: string,
): void {
  if (role === wanted) return;
  throw new WireError(
    "invalid_request",
    `${param}: a ${type} block belongs in a${wanted === "assistant" ? "n" : ""} ${wanted} message.`,
    { param },
  );
}
