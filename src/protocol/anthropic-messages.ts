// The Anthropic Messages API as Spark serves it (POST /v1/messages, /v1/messages/count_tokens):
// zod schemas for what clients send, and the shapes of the message and stream events sent back.
import { z } from "zod";

/** Accepted on any block and ignored: Spark reuses every prefix it holds, marked or not. */
const cacheControlSchema = z.looseObject({ type: z.string() }).nullable().optional();

const textBlockSchema = z.looseObject({
  type: z.literal("text"),
  text: z.string(),
  cache_control: cacheControlSchema,
});

/** Blocks a tool result may hold: text, or (refused with a reason) images and documents. */
const toolResultPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const toolUseBlockSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
  cache_control: cacheControlSchema,
});

const toolResultBlockSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(toolResultPartSchema)]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControlSchema,
});

const thinkingBlockSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
});

const knownBlockTypes: readonly string[] = ["text", "tool_use", "tool_result", "thinking"];

/** image, document, redacted_thinking, server tool blocks…: accepted here so the request mapping
 * can say which one and why it is refused or dropped. */
const otherBlockSchema = z.looseObject({
  type: z.string().refine((type) => !knownBlockTypes.includes(type), { abort: true }),
});

export const anthropicContentBlockSchema = z.union([
  textBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  thinkingBlockSchema,
  otherBlockSchema,
]);

export const anthropicMessageParamSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(anthropicContentBlockSchema)]),
});

/** A client tool ({name, input_schema}) or a server tool ({type: "web_search_…", name}). */
export const anthropicToolSchema = z.looseObject({
  type: z.string().optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
  cache_control: cacheControlSchema,
});

export const anthropicToolChoiceSchema = z.looseObject({
  type: z.enum(["auto", "any", "tool", "none"]),
  name: z.string().optional(),
  disable_parallel_tool_use: z.boolean().optional(),
});

/** enabled (with a budget), adaptive (Claude Code 2.1) or disabled. */
export const anthropicThinkingSchema = z.looseObject({
  type: z.enum(["enabled", "disabled", "adaptive"]),
  budget_tokens: z.number().int().optional(),
});

const systemSchema = z.union([z.string(), z.array(textBlockSchema)]);

const countTokensFields = {
  model: z.string().min(1),
  messages: z.array(anthropicMessageParamSchema),
  system: systemSchema.optional(),
  tools: z.array(anthropicToolSchema).optional(),
  tool_choice: anthropicToolChoiceSchema.optional(),
  thinking: anthropicThinkingSchema.optional(),
};

/** POST /v1/messages. Loose: fields Spark has no use for (context_management, output_config,
 * service_tier, container…) pass unread. */
export const anthropicMessageCreateSchema = z.looseObject({
  ...countTokensFields,
  // Required, as Anthropic requires it: the SDKs always send it.
  max_tokens: z.number().int().positive(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
});

/** POST /v1/messages/count_tokens. */
export const anthropicCountTokensSchema = z.looseObject(countTokensFields);

export type AnthropicContentBlockParam = z.infer<typeof anthropicContentBlockSchema>;
export type AnthropicMessageParam = z.infer<typeof anthropicMessageParamSchema>;
export type AnthropicTool = z.infer<typeof anthropicToolSchema>;
export type AnthropicToolChoice = z.infer<typeof anthropicToolChoiceSchema>;
export type AnthropicMessageCreate = z.infer<typeof anthropicMessageCreateSchema>;
export type AnthropicCountTokens = z.infer<typeof anthropicCountTokensSchema>;

// What Spark sends back.

export type AnthropicStopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use";

export interface AnthropicUsage {
  /** Input evaluated for this request (Anthropic's input_tokens leave out cache reads). */
  input_tokens: number;
  /** Input the engine found in its cache (Spark's real prefix reuse). */
  cache_read_input_tokens: number;
  /** Always 0: Spark keeps what it evaluates without being asked, so nothing is billed as a write. */
  cache_creation_input_tokens: number;
  output_tokens: number;
}

export type AnthropicContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

export interface AnthropicMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

export type AnthropicBlockDelta =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "input_json_delta"; partial_json: string };

/** Anthropic's error families, as its SDKs and Claude Code match on them. */
export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "overloaded_error";

export interface AnthropicErrorBody {
  type: "error";
  error: { type: AnthropicErrorType; message: string };
}

export type AnthropicStreamEvent =
  | { type: "message_start"; message: AnthropicMessage }
  | { type: "content_block_start"; index: number; content_block: AnthropicContentBlock }
  | { type: "content_block_delta"; index: number; delta: AnthropicBlockDelta }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason: AnthropicStopReason | null; stop_sequence: string | null };
      usage: AnthropicUsage;
    }
  | { type: "message_stop" }
  | { type: "ping" }
  | AnthropicErrorBody;
