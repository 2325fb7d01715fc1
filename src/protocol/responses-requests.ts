// Zod schemas for what clients send the Responses API: the HTTP body of POST /v1/responses, and
// the WebSocket client events (`response.create`, plus Spark's cancel, steer and resume).
import { z } from "zod";
import { topKMinPFields } from "./sampling-fields.ts";
import { metadataSchema } from "./request-metadata.ts";

const contentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const messageItemSchema = z.looseObject({
  type: z.literal("message").optional(),
  id: z.string().optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string(), z.array(contentPartSchema)]),
});

const functionCallItemSchema = z.looseObject({
  type: z.literal("function_call"),
  id: z.string().optional(),
  call_id: z.string(),
  name: z.string(),
  /** Set when the function belongs to a `namespace` tool. */
  namespace: z.string().optional(),
  arguments: z.string(),
});

/** A call of a freeform (`custom`) tool: its input is free text, not JSON. */
const customToolCallItemSchema = z.looseObject({
  type: z.literal("custom_tool_call"),
  id: z.string().optional(),
  call_id: z.string(),
  name: z.string(),
  namespace: z.string().optional(),
  input: z.string(),
});

const functionCallOutputItemSchema = z.looseObject({
  type: z.literal("function_call_output"),
  id: z.string().optional(),
  call_id: z.string(),
  output: z.union([z.string(), z.array(contentPartSchema)]),
});

const customToolCallOutputItemSchema = z.looseObject({
  type: z.literal("custom_tool_call_output"),
  id: z.string().optional(),
  call_id: z.string(),
  output: z.union([z.string(), z.array(contentPartSchema)]),
});

/** An earlier output item by id (clients of a stored response send these instead of the item). */
const itemReferenceSchema = z.looseObject({
  type: z.literal("item_reference"),
  id: z.string(),
});

const knownItemTypes: readonly string[] = [
  "message",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "item_reference",
];

/** Item types Spark does not turn into model input (reasoning, images, hosted tools): accepted
 * here so conversation building can say exactly which one and why. */
const otherItemSchema = z.looseObject({
  type: z.string().refine((type) => !knownItemTypes.includes(type), { abort: true }),
});

export const inputItemSchema = z.union([
  messageItemSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  customToolCallItemSchema,
  customToolCallOutputItemSchema,
  itemReferenceSchema,
  otherItemSchema,
]);

export const inputSchema = z.union([z.string(), z.array(inputItemSchema)]);

/** A function or custom tool, alone or inside a namespace. */
const memberToolSchema = z.looseObject({
  type: z.string(),
  name: z.string().optional(),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
  /** custom tools: `{type: "text"}` or `{type: "grammar", syntax, definition}`. */
  format: z.looseObject({ type: z.string() }).nullable().optional(),
});

/** Any tool: function, custom, namespace (a group of function/custom tools), or a hosted one. */
export const toolSchema = memberToolSchema.extend({
  tools: z.array(memberToolSchema).optional(),
});

export const toolChoiceSchema = z.union([
  z.enum(["none", "auto", "required"]),
  z.looseObject({ type: z.enum(["function", "custom"]), name: z.string() }),
]);

/** OpenAI's rule for a schema's name, so a name that works here works there too. */
export const outputSchemaNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, underscores or dashes");

/** Structured output: free text (the default), any JSON object, or JSON valid against a schema. */
export const textFormatSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    name: outputSchemaNameSchema,
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().nullable().optional(),
    description: z.string().nullable().optional(),
  }),
]);

/** `text`: the output format; other members (verbosity) pass unread. */
const textSchema = z.looseObject({ format: textFormatSchema.nullable().optional() });

const responseCreateFields = {
  model: z.string().optional(),
  input: inputSchema.optional(),
  instructions: z.string().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  ...topKMinPFields,
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  metadata: metadataSchema.nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  text: textSchema.nullable().optional(),
  store: z.boolean().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  /** WebSocket mode: `false` prepares the conversation (and the engine's cache) without output. */
  generate: z.boolean().optional(),
};

/** POST /v1/responses. Loose: OpenAI fields Spark has no use for (reasoning, include…) pass. */
export const responseCreateBodySchema = z.looseObject(responseCreateFields);

export const responseCreateEventSchema = z.looseObject({
  type: z.literal("response.create"),
  ...responseCreateFields,
});

/** Spark extension: stop the response in flight now and keep its partial output. */
export const responseCancelEventSchema = z.looseObject({
  type: z.literal("response.cancel"),
  response_id: z.string().optional(),
});

/** Steering, OpenAI's shape (`previous_response_id`: the response being steered) or Spark's
 * earlier one (`response_id`): stop at the next token, keep the partial output, and continue in
 * an automatic successor response with `input` appended. The input's shape is checked by the
 * session, which answers a bad one with response.steer.failed (invalid_input). */
export const responseSteerEventSchema = z.looseObject({
  type: z.literal("response.steer"),
  previous_response_id: z.string().optional(),
  response_id: z.string().optional(),
  input: z.unknown().refine((input) => input !== undefined, { message: "required" }),
});

/** Spark extension: after a reconnect, replay a response's events after `last_sequence_number`. */
export const responseResumeEventSchema = z.looseObject({
  type: z.literal("response.resume"),
  response_id: z.string(),
  last_sequence_number: z.number().int().min(-1).optional(),
});

export const responsesClientEventSchema = z.discriminatedUnion("type", [
  responseCreateEventSchema,
  responseCancelEventSchema,
  responseSteerEventSchema,
  responseResumeEventSchema,
]);

export const responsesClientEventTypes = [
  "response.create",
  "response.cancel",
  "response.steer",
  "response.resume",
] as const;

export type InputItem = z.infer<typeof inputItemSchema>;
export type MemberTool = z.infer<typeof memberToolSchema>;
export type ResponseInput = z.infer<typeof inputSchema>;
export type ResponseTool = z.infer<typeof toolSchema>;
export type ResponseToolChoice = z.infer<typeof toolChoiceSchema>;
export type ResponseTextFormat = z.infer<typeof textFormatSchema>;
export type ResponseCreateBody = z.infer<typeof responseCreateBodySchema>;
export type ResponseCreateEvent = z.infer<typeof responseCreateEventSchema>;
export type ResponseCancelEvent = z.infer<typeof responseCancelEventSchema>;
export type ResponseSteerEvent = z.infer<typeof responseSteerEventSchema>;
export type ResponseResumeEvent = z.infer<typeof responseResumeEventSchema>;
export type ResponsesClientEvent = z.infer<typeof responsesClientEventSchema>;
