// A Chat Completions request as an EngineRequest: messages (with tool calls and results), tools,
// sampling, response_format, predicted output, and prompt_cache_key as the engine's sessionKey.
import type {
  ChatMessage,
  EngineRequest,
  SamplingOptions,
  ToolDefinition,
} from "../../engines/engine.ts";
import type {
  ChatCompletionRequest,
  ChatCompletionRequestMessage,
} from "../../protocol/chat-completions.ts";
import { extendedSampling } from "../turn/extended-sampling.ts";
import { outputFormatFromChat } from "../turn/output-format.ts";
import { checkSchemaSizeAt } from "../wire/schema-error.ts";
import { WireError } from "../wire/wire-error.ts";

type Content = string | Array<{ type: string; text?: string | undefined }> | null | undefined;

export function toEngineChatRequest(body: ChatCompletionRequest, model: string): EngineRequest {
  const toolNames = new Map<string, string>();
  const messages = body.messages.map((message, index) =>
    toChatMessage(message, `messages[${index}]`, toolNames),
  );
  const sampling: SamplingOptions = extendedSampling(body);
  if (body.temperature != null) sampling.temperature = body.temperature;
  if (body.top_p != null) sampling.topP = body.top_p;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens != null) sampling.maxOutputTokens = maxTokens;
  if (body.stop != null) sampling.stop = typeof body.stop === "string" ? [body.stop] : body.stop;
  if (body.seed != null) sampling.seed = body.seed;
  const request: EngineRequest = { model, messages, sampling };
  if (body.tools !== undefined && body.tools.length > 0 && body.tool_choice !== "none") {
    request.tools = body.tools.map((tool, index): ToolDefinition => {
      const definition: ToolDefinition = {
        name: tool.function.name,
        parameters: tool.function.parameters ?? { type: "object", properties: {} },
      };
      checkSchemaSizeAt(definition.parameters, `tools[${index}].function.parameters`);
      if (tool.function.description !== undefined)
        definition.description = tool.function.description;
      return definition;
    });
  }
  const choice = body.tool_choice;
  if (request.tools !== undefined && choice !== undefined) {
    request.toolChoice = typeof choice === "string" ? choice : { name: choice.function.name };
  }
  if (body.prediction != null)
    request.prediction = textOf(body.prediction.content, "prediction.content");
  if (body.prompt_cache_key != null) request.sessionKey = body.prompt_cache_key;
  const outputFormat = outputFormatFromChat(body.response_format);
  if (outputFormat !== undefined) request.outputFormat = outputFormat;
  return request;
}

function toChatMessage(
  message: ChatCompletionRequestMessage,
  param: string,
  toolNames: Map<string, string>,
): ChatMessage {
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", content: textOf(message.content, `${param}.content`) };
    case "user":
      return { role: "user", content: textOf(message.content, `${param}.content`) };
    case "assistant": {
      const content = textOf(message.content, `${param}.content`);
      const toolCalls = (message.tool_calls ?? []).map((call) => {
        toolNames.set(call.id, call.function.name);
        return { id: call.id, name: call.function.name, arguments: call.function.arguments };
      });
      const reasoning = message.reasoning_content ?? "";
      return {
        role: "assistant",
        content,
        ...(toolCalls.length === 0 ? {} : { toolCalls }),
        ...(reasoning === "" ? {} : { reasoning }),
      };
    }
    case "tool": {
      const name = toolNames.get(message.tool_call_id) ?? message.name;
      const content = textOf(message.content, `${param}.content`);
      return {
        role: "tool",
        toolCallId: message.tool_call_id,
        content,
        ...(name === undefined ? {} : { name }),
      };
    }
    default:
      message satisfies never;
      throw new WireError("invalid_request", `${param}: unknown role.`, { param });
  }
}

function textOf(content: Content, param: string): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  let text = "";
  content.forEach((part, index) => {
    if (part.type !== "text" || part.text === undefined) {
      throw new WireError(
        "invalid_request",
        `${param}[${index}]: content parts of type '${part.type}' are not supported; Spark's engines take text parts.`,
        { param: `${param}[${index}]` },
      );
    }
    text += part.text;
  });
  return text;
}
