// A request's prompt tokens, rendered before a sequence is chosen (the pool matches them against
// each sequence's cache): a chat through the model's chat wrapper, with the tools documented in it,
// or a raw completion / FIM prompt. Continuing a partial answer, the chat ends with it, left open.
import type { ChatWrapper, LlamaModel, Tokenizer } from "node-llama-cpp";
import type { EngineRequest, ToolDefinition } from "../engine.ts";
import { historyToRender } from "./continue-final-message.ts";
import {
  renderCompletionPrompt,
  type FimFormat,
  type RenderedPrompt,
} from "./completion-prompt.ts";
import { toChatModelFunctions } from "./generate-with-tools.ts";

export interface PromptRenderer {
  model: LlamaModel;
  chatWrapper: ChatWrapper;
  /** For chat prompts: PromptTokenCache's, so a follow-up tokenizes only its new messages. */
  tokenizer: Tokenizer;
  fim: FimFormat;
}

/** Throws a SparkError when the request cannot be rendered (FIM on a model without FIM). */
export function renderRequestPrompt(
  renderer: PromptRenderer,
  request: EngineRequest,
  tools: ToolDefinition[],
): RenderedPrompt {
  if (request.completion !== undefined)
    return renderCompletionPrompt(renderer.model, request.completion, renderer.fim);
  const { contextText } = renderer.chatWrapper.generateContextState({
    chatHistory: historyToRender(request),
    ...(tools.length === 0 ? {} : { availableFunctions: toChatModelFunctions(tools) }),
  });
  const tokens = contextText.tokenize(renderer.tokenizer);
  // A follow-up turn repeats the whole conversation, this prompt included.
  return { tokens, stableLength: tokens.length };
}
