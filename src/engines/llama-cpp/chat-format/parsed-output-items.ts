// A parsed model output as the Responses output items the gateway produces for it: reasoning
// first (as OpenAI's reasoning item), then the answer's text as a message, then one function_call
// per call, keeping the model's own call id where its format has one.
import { randomUUID } from "node:crypto";
import type { ParsedChatMessage } from "./chat-format.ts";

export type ParsedOutputItem =
  | { type: "reasoning"; summary: []; content: [{ type: "reasoning_text"; text: string }] }
  | {
      type: "message";
      role: "assistant";
      status: "completed";
      content: [{ type: "output_text"; text: string; annotations: [] }];
    }
  | {
      type: "function_call";
      call_id: string;
      name: string;
      arguments: string;
      status: "completed";
    };

/** The id Spark gives a call whose format carries none (as generate-on-lease.ts does). */
export const newToolCallId = (): string => `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;

export function parsedOutputItems(parsed: ParsedChatMessage): ParsedOutputItem[] {
  const items: ParsedOutputItem[] = [];
  if (parsed.reasoning !== "") {
    items.push({
      type: "reasoning",
      summary: [],
      content: [{ type: "reasoning_text", text: parsed.reasoning }],
    });
  }
  if (parsed.content !== "") {
    items.push({
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: parsed.content, annotations: [] }],
    });
  }
  for (const call of parsed.toolCalls) {
    items.push({
      type: "function_call",
      call_id: call.id === "" ? newToolCallId() : call.id,
      name: call.name,
      arguments: call.arguments,
      status: "completed",
    });
  }
  return items;
}
