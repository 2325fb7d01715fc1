// The one line said at load (spark doctor, the serve log, spark models) when a model's chat
// template cannot run under llama.cpp's chat format: the model, the reason, and what it means.
export interface ChatFormatState {
  /** Why chat requests do not run under the model's chat format (openModelChatFormat's reason). */
  fallbackReason: string | undefined;
  /** Why requests under the chat format are served without their tools. */
  toolsUnsupportedReason: string | undefined;
}

export function chatFormatNotice(model: string, state: ChatFormatState): string | undefined {
  if (state.fallbackReason !== undefined)
    return `model ${model}: ${state.fallbackReason}; tool calls through node-llama-cpp's wrapper`;
  if (state.toolsUnsupportedReason !== undefined)
    return `model ${model}: ${state.toolsUnsupportedReason}; serves text without tools`;
  return undefined;
}
