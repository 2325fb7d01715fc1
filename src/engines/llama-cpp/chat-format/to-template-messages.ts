// Spark's messages as a Chat Completions body, the shape llama.cpp's chat templates take: tool
// results go as the tool's own text (not JSON-encoded), each keeps its call id and carries the
// called tool's name (Gemma and Kimi print it), and an assistant turn with nothing in it is left
// out instead of rendered as an empty turn.
import type { ChatMessage, ToolChoice, ToolDefinition } from "../../engine.ts";

export type TemplateMessage =
  | { role: "system" | "user"; content: string }
  | {
      role: "assistant";
      content: string;
      /** The turn's reasoning, which templates such as gpt-oss's and Qwen3's print back. */
      reasoning_content?: string;
      tool_calls?: {
        id: string;
        type: "function";
        function: { name: string; arguments: string };
      }[];
    }
  | { role: "tool"; tool_call_id: string; name?: string; content: string };

export interface TemplateTool {
  type: "function";
  function: { name: string; description?: string; parameters: object };
}

export function toTemplateMessages(messages: readonly ChatMessage[]): TemplateMessage[] {
  const callNames = new Map<string, string>();
  const converted: TemplateMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "user":
        converted.push({ role: message.role, content: message.content });
        break;
      case "assistant": {
        const calls = message.toolCalls ?? [];
        if (message.content === "" && calls.length === 0) break;
        for (const call of calls) callNames.set(call.id, call.name);
        converted.push({
          role: "assistant",
          content: message.content,
          ...(message.reasoning === undefined || message.reasoning === ""
            ? {}
            : { reasoning_content: message.reasoning }),
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: "function" as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }),
        });
        break;
      }
      case "tool": {
        const name = message.name ?? callNames.get(message.toolCallId);
        converted.push({
          role: "tool",
          tool_call_id: message.toolCallId,
          ...(name === undefined ? {} : { name }),
          content: message.content,
        });
        break;
      }
      default:
        message satisfies never;
    }
  }
  return converted;
}

/**
 * The tools and llama.cpp's tool_choice for Spark's: a named tool becomes "required" over that
 * tool alone (llama.cpp's formats force "some call"; with one tool offered that is this call).
 */
export function toTemplateTools(
  tools: readonly ToolDefinition[],
  choice: ToolChoice | undefined,
): { tools: TemplateTool[]; toolChoice: "auto" | "none" | "required" } {
  const offered =
    typeof choice === "object" ? tools.filter((tool) => tool.name === choice.name) : tools;
  return {
    tools: offered.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.parameters,
      },
    })),
    toolChoice: typeof choice === "object" ? "required" : (choice ?? "auto"),
  };
}
