// A finished Responses response object as Anthropic's message: output items → content blocks,
// status → stop_reason, usage → Anthropic's usage with the engine's cached prefix as cache reads.
import type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicStopReason,
  AnthropicUsage,
} from "../../../protocol/anthropic-messages.ts";
import type { ResponseObject } from "../../../protocol/responses-events.ts";

/** Sent as a thinking block's signature: clients send it back, Spark reads the text instead. */
export const THINKING_SIGNATURE = "spark-local-reasoning";

export interface MessageIdentity {
  id: string;
  /** The model name the client asked for, echoed as Anthropic echoes it. */
  model: string;
  /** Reasoning becomes thinking blocks only when the client asked for thinking. */
  thinking: boolean;
}

/** The message id for a turn: the response id's random part, so the request log's line (which
 * names the response id) and the client's message id are easy to match. */
export function messageIdOf(responseId: string): string {
  return `msg_${responseId.replace(/^resp_/, "")}`;
}

export function toAnthropicMessage(
  response: ResponseObject,
  identity: MessageIdentity,
): AnthropicMessage {
  const content: AnthropicContentBlock[] = [];
  for (const item of response.output) {
    if (item.type === "message") {
      const text = item.content.map((part) => part.text).join("");
      if (text !== "") content.push({ type: "text", text });
    } else if (item.type === "reasoning") {
      if (!identity.thinking) continue;
      const thinking = item.content.map((part) => part.text).join("");
      content.push({ type: "thinking", thinking, signature: THINKING_SIGNATURE });
    } else if (item.type === "function_call") {
      content.push({
        type: "tool_use",
        id: item.call_id,
        name: item.name,
        input: parseToolInput(item.arguments),
      });
    }
    // custom_tool_call cannot occur: the request mapping offers function tools only.
  }
  return {
    id: identity.id,
    type: "message",
    role: "assistant",
    model: identity.model,
    content,
    stop_reason: stopReasonOf(response),
    stop_sequence: null,
    usage: anthropicUsage(response.usage),
  };
}

/** `tool_use` when the answer calls a tool, `max_tokens` when it was cut, else `end_turn`. (The
 * engines do not say whether a stop sequence ended the text, so `stop_sequence` is not reported.) */
export function stopReasonOf(response: ResponseObject): AnthropicStopReason {
  if (
    response.status === "incomplete" &&
    response.incomplete_details?.reason === "max_output_tokens"
  )
    return "max_tokens";
  if (response.output.some((item) => item.type === "function_call")) return "tool_use";
  return "end_turn";
}

export function anthropicUsage(usage: ResponseObject["usage"]): AnthropicUsage {
  const total = usage?.input_tokens ?? 0;
  const cached = usage?.input_tokens_details.cached_tokens ?? 0;
  return {
    input_tokens: total - cached,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
    output_tokens: usage?.output_tokens ?? 0,
  };
}

/** A call's arguments as the object Anthropic's `input` is; arguments cut short by max_tokens (not
 * JSON yet) come back as an empty object, the call's name still saying what was started. */
function parseToolInput(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}
