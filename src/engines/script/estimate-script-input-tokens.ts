// The input tokens the script engine reports: what the prompt holds (instructions, messages with
// their tool calls, and the tool definitions), counted as the agent's context budget estimates it.
import type { EngineRequest } from "../engine.ts";

const CHARACTERS_PER_TOKEN = 4;
/** Role markers and separators a chat template adds around each message. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * The budget learns a ratio from the reported count against its own estimate: a count that left
 * out the tool definitions made it shrink every later estimate (the TUI's ctx 1.5k → ~340).
 */
export function estimateScriptInputTokens(request: EngineRequest): number {
  let tokens = 0;
  for (const message of request.messages ?? []) {
    let characters = message.content.length;
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? [])
        characters += call.name.length + call.arguments.length;
    tokens += MESSAGE_OVERHEAD_TOKENS + Math.ceil(characters / CHARACTERS_PER_TOKEN);
  }
  if (request.tools !== undefined && request.tools.length > 0)
    tokens += Math.ceil(JSON.stringify(request.tools).length / CHARACTERS_PER_TOKEN);
  return Math.max(1, tokens);
}
