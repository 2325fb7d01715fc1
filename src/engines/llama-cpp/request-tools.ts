// Which tools a request's generation may call once tool_choice is applied, and the message for a
// prompt that does not fit the context.
import type { EngineRequest, ToolDefinition } from "../engine.ts";

export function requestTools(request: EngineRequest): ToolDefinition[] {
  const choice = request.toolChoice ?? "auto";
  if (choice === "none" || request.completion !== undefined) return [];
  return (request.tools ?? []).filter(
    (tool) => typeof choice !== "object" || tool.name === choice.name,
  );
}

/** Raising context_size helps only up to the model's trained context; past it, say so. */
export function contextOverflowMessage(
  promptTokens: number,
  contextSize: number,
  configured: number,
  trained: number,
): string {
  const base = `The prompt is ${promptTokens} tokens but the context holds ${contextSize}`;
  if (configured > trained) {
    return (
      `${base}: the model was trained for ${trained} tokens, so context_size = ${configured} ` +
      `is capped to it. Shorten the conversation or use a model with a longer context.`
    );
  }
  return `${base}; shorten the conversation or raise context_size (up to the model's ${trained}).`;
}
