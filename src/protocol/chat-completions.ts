// Chat Completions wire shapes (the `openai` package's ChatCompletionCreateParams, ChatCompletion
// and ChatCompletionChunk): the request schema Spark accepts and the objects it answers with.
import { z } from "zod";
import { penaltyFields, topKMinPFields } from "./sampling-fields.ts";
import { metadataSchema } from "./request-metadata.ts";
import { outputSchemaNameSchema } from "./responses-requests.ts";
import type { SparkTimings } from "./responses-events.ts";

const chatContentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
]);

const chatToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const chatMessageSchema = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: chatContentSchema }),
  z.looseObject({ role: z.literal("developer"), content: chatContentSchema }),
  z.looseObject({ role: z.literal("user"), content: chatContentSchema }),
  z.looseObject({
    role: z.literal("assistant"),
    content: chatContentSchema.nullable().optional(),
    tool_calls: z.array(chatToolCallSchema).optional(),
    /** The model's reasoning before this turn, as llama-server and DeepSeek return it. */
    reasoning_content: z.string().nullable().optional(),
  }),
  z.looseObject({
    role: z.literal("tool"),
    content: chatContentSchema,
    tool_call_id: z.string(),
    name: z.string().optional(),
  }),
]);

/** Structured output, Chat Completions' shape of Responses' `text.format`. */
const responseFormatSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    json_schema: z.looseObject({
      name: outputSchemaNameSchema,
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullable().optional(),
      description: z.string().nullable().optional(),
    }),
  }),
]);

export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(chatMessageSchema).min(1),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  ...topKMinPFields,
  ...penaltyFields,
  stop: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  seed: z.number().int().nullable().optional(),
  n: z.literal(1).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  /** Not used by Spark, but held to OpenAI's limits like the Responses field. */
  metadata: metadataSchema.nullable().optional(),
  tools: z
    .array(
      z.looseObject({
        type: z.literal("function"),
        function: z.looseObject({
          name: z.string(),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .optional(),
  tool_choice: z
    .union([
      z.enum(["none", "auto", "required"]),
      z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
    ])
    .optional(),
  prediction: z
    .looseObject({ type: z.literal("content"), content: chatContentSchema })
    .nullable()
    .optional(),
  prompt_cache_key: z.string().nullable().optional(),
  response_format: responseFormatSchema.nullable().optional(),
});

export type ChatResponseFormat = z.infer<typeof responseFormatSchema>;
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type ChatCompletionRequestMessage = z.infer<typeof chatMessageSchema>;

export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export interface ChatCompletionToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: "assistant";
      content: string | null;
      /** The model's reasoning, apart from the answer (llama-server's and DeepSeek's field). */
      reasoning_content?: string;
      refusal: null;
      tool_calls?: ChatCompletionToolCall[];
    };
    finish_reason: ChatFinishReason;
    logprobs: null;
  }>;
  usage: ChatCompletionUsage;
  /** Spark extension: where the time went (see SparkTimings in responses-events.ts). */
  spark_timings?: SparkTimings;
}

export interface ChatCompletionChunkToolCall {
  index: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: "assistant";
      content?: string;
      reasoning_content?: string;
      tool_calls?: ChatCompletionChunkToolCall[];
    };
    finish_reason: ChatFinishReason | null;
    logprobs: null;
  }>;
  usage?: ChatCompletionUsage | null;
  spark_timings?: SparkTimings;
}
