// Wire shapes of the Chat Completions API as Spark sends and reads them. Incoming chunks are typed
// loosely (every field optional or nullable) because each server fills them differently.

export type ChatCompletionsMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; tool_calls?: ChatCompletionsToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatCompletionsToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatCompletionsTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export interface ChatCompletionsRequestBody {
  model: string;
  messages: ChatCompletionsMessage[];
  stream: true;
  stream_options?: { include_usage: true };
  tools?: ChatCompletionsTool[];
  tool_choice?: "auto" | "none" | "required" | { type: "function"; function: { name: string } };
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string[];
  seed?: number;
  prediction?: { type: "content"; content: string };
  response_format?: ChatCompletionsResponseFormat;
}

/** Structured output as Chat Completions takes it. */
export type ChatCompletionsResponseFormat =
  | { type: "json_object" }
  | {
      type: "json_schema";
      json_schema: {
        name: string;
        schema: Record<string, unknown>;
        strict?: boolean;
        description?: string;
      };
    };

export interface ChatCompletionsToolCallDelta {
  index?: number;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

export interface ChatCompletionsUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: {
    accepted_prediction_tokens?: number | null;
    rejected_prediction_tokens?: number | null;
  } | null;
}

export interface ChatCompletionsChunk {
  id?: string;
  object?: string;
  choices?: Array<{
    index?: number;
    delta?: {
      role?: string | null;
      content?: string | null;
      /** The model's reasoning: llama-server's, DeepSeek's and older vLLM's field. */
      reasoning_content?: string | null;
      /** The same under the name newer vLLM and OpenRouter use. */
      reasoning?: string | null;
      tool_calls?: ChatCompletionsToolCallDelta[] | null;
      /** The pre-tools API; some servers still send it. */
      function_call?: { name?: string | null; arguments?: string | null } | null;
    } | null;
    finish_reason?: string | null;
  }> | null;
  usage?: ChatCompletionsUsage | null;
  /** llama-server: prompt_n tokens evaluated, cache_n reused from its KV cache. */
  timings?: {
    prompt_n?: number | null;
    cache_n?: number | null;
    predicted_n?: number | null;
  } | null;
  /** Groq puts usage here on the final chunk. */
  x_groq?: { usage?: ChatCompletionsUsage | null } | null;
  /** OpenRouter and vLLM report a failure that happens mid-stream as an error object. */
  error?: { message?: string | null; code?: string | number | null; type?: string | null } | null;
}
