// Whether a chat request runs under the model's chat format (llama.cpp's common/chat) and, when it
// does, its rendered prompt with the tools it is offered and its structured output's schema.
import type { LlamaModel } from "node-llama-cpp";
import type { EngineRequest, ToolDefinition } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { ChatFormat } from "./chat-format/chat-format.ts";
import { renderChatFormatPrompt, type ChatFormatPrompt } from "./chat-format/chat-format-prompt.ts";
import { chatFormatJsonSchema } from "./structured-output/chat-format-schema.ts";
import type { ToolCallSyntax } from "./tool-calls/tool-call-syntax.ts";

/** The engine's parts the choice reads. */
export interface ChatFormatRequestParts {
  modelName: string;
  model: LlamaModel;
  chatFormat: ChatFormat | undefined;
  /** The model's tool-call syntax when the native loop runs tool turns. */
  toolSyntax: ToolCallSyntax | undefined;
  /** Why requests under the chat format are served without their tools, when they are. */
  chatFormatToolsUnsupportedReason: string | undefined;
}

/**
 * A chat request under the model's chat format, when it runs so (undefined: the chat wrapper
 * renders it). Structured output beside tools stays on the <tool_call> jobs that interleave
 * the two where the model speaks that syntax; elsewhere it is refused. A template without a
 * tool-call format serves the request as text, without its tools.
 */
export function chatFormatPrompt(
  parts: ChatFormatRequestParts,
  request: EngineRequest,
  tools: readonly ToolDefinition[],
): ChatFormatPrompt | undefined {
  const { chatFormat } = parts;
  if (chatFormat === undefined || request.completion !== undefined) return undefined;
  if (tools.length > 0 && request.outputFormat !== undefined) {
    if (parts.toolSyntax !== undefined) return undefined;
    throw new SparkError(
      "invalid_request",
      `Structured output beside tools is not supported with ${parts.modelName}'s chat format; ` +
        "send the request without tools or without a response format.",
    );
  }
  const offered = parts.chatFormatToolsUnsupportedReason === undefined ? tools : [];
  // Structured output (no tools here) under llama.cpp's own json-schema-to-grammar, as
  // llama-server's response_format: it keeps pattern, uuid, lengths and integer bounds. A schema
  // too wide for that converter to build quickly stays on the chat wrapper with node-llama-cpp's
  // grammar (built on a worker), as before.
  const jsonSchema =
    request.outputFormat === undefined
      ? undefined
      : chatFormatJsonSchema(chatFormat, request.outputFormat);
  if (request.outputFormat !== undefined && jsonSchema === undefined) return undefined;
  return renderChatFormatPrompt(chatFormat, parts.model, request, offered, jsonSchema);
}
