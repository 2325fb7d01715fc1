// Wire shapes of the two fill-in-the-middle endpoints: OpenAI's legacy completions
// (`POST /v1/completions`, prompt + suffix) and llama.cpp server's `POST /infill`.
import { z } from "zod";
import { penaltyFields, topKMinPFields } from "./sampling-fields.ts";
import type { SparkTimings } from "./responses-events.ts";

const stopSchema = z
  .union([z.string(), z.array(z.string())])
  .nullable()
  .optional();

const contextChunkSchema = z.looseObject({ filename: z.string(), text: z.string() });

export const completionRequestSchema = z.looseObject({
  model: z.string().optional(),
  // The SDK allows a list of prompts; Spark serves one completion per request.
  prompt: z.union([z.string(), z.array(z.string()).length(1)]),
  suffix: z.string().nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  ...topKMinPFields,
  ...penaltyFields,
  stop: stopSchema,
  seed: z.number().int().nullable().optional(),
  n: z.literal(1).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  /** The document: consecutive requests with the same key share its cache and cancel each other. */
  prompt_cache_key: z.string().nullable().optional(),
  // Spark's extensions, named as in llama.cpp's /infill.
  input_extra: z.array(contextChunkSchema).optional(),
  filename: z.string().optional(),
  t_max_predict_ms: z.number().int().nonnegative().optional(),
});

export type CompletionRequest = z.infer<typeof completionRequestSchema>;

export const infillRequestSchema = z.looseObject({
  model: z.string().optional(),
  input_prefix: z.string().default(""),
  input_suffix: z.string().default(""),
  input_extra: z.array(contextChunkSchema).optional(),
  /** Text after the FIM middle token: what the user already typed of the middle. */
  prompt: z.string().optional(),
  n_predict: z.number().int().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  ...topKMinPFields,
  stop: stopSchema,
  seed: z.number().int().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  t_max_predict_ms: z.number().int().nonnegative().optional(),
  /** Spark: the document's key (the same as prompt_cache_key); the filename otherwise. */
  prompt_cache_key: z.string().optional(),
  filename: z.string().optional(),
});

export type InfillRequest = z.infer<typeof infillRequestSchema>;

export type CompletionFinishReason = "stop" | "length" | "cancelled";

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

/** A `text_completion` object: the whole answer, or one streamed chunk of it. */
export interface TextCompletion {
  id: string;
  object: "text_completion";
  created: number;
  model: string;
  choices: {
    text: string;
    index: 0;
    logprobs: null;
    finish_reason: CompletionFinishReason | null;
  }[];
  usage?: CompletionUsage;
  spark_timings?: SparkTimings;
}

/** llama.cpp server's timings object, as editor plugins read it. */
export interface InfillTimings {
  cache_n: number;
  prompt_n: number;
  prompt_ms: number;
  prompt_per_second: number | null;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_second: number | null;
}

/** One /infill answer, or one streamed piece of it (`stop: false` until the last). */
export interface InfillResponse {
  content: string;
  stop: boolean;
  model: string;
  tokens_predicted?: number;
  tokens_evaluated?: number;
  tokens_cached?: number;
  /** "eos": the model ended; "limit": n_predict or the time budget; "word": a stop string or rule. */
  stop_type?: "none" | "eos" | "limit" | "word";
  stopping_word?: string;
  truncated?: boolean;
  timings?: InfillTimings;
}
