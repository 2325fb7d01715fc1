// A tool call the model must make on node-llama-cpp's loop (tool_choice "required" or a named
// tool; the native loop has its own, generate-native-tools.ts): the call opens with
// the Hermes/Qwen `<tool_call>` tag and its JSON is sampled under a grammar built from the tools'
// JSON schemas, so it always parses and always names a real tool with valid arguments.
import { nodeLlamaCppFilters } from "./node-llama-cpp-sampling.ts";
import { LlamaGrammarEvaluationState, type LlamaGrammar } from "node-llama-cpp";
import type { EngineEvent, ToolDefinition } from "../engine.ts";
import { streamToolCall } from "./tool-calls/stream-tool-call.ts";
import { toolCallSchema } from "./tool-calls/tool-call-schema.ts";
import { alignSequenceToPrompt, type GenerationInput } from "./generate-text.ts";
import type { GenerationResult } from "./generation-result.ts";

export interface ForcedToolCallInput extends GenerationInput {
  /** Compiles (or returns the cached) grammar for a tool-call JSON schema. */
  grammarFor: (schema: object) => Promise<LlamaGrammar>;
  tools: readonly ToolDefinition[];
  newToolCallId: () => string;
}

const CALL_PREFIX = "<tool_call>\n";

export async function* generateForcedToolCall(
  input: ForcedToolCallInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { model, sequence, sampling } = input;
  const grammar = await input.grammarFor(toolCallSchema(input.tools));
  const prefixTokens = model.tokenize(CALL_PREFIX, true);
  const promptTokens = [...input.promptTokens, ...prefixTokens];
  result.cachedInputTokens = await alignSequenceToPrompt(sequence, promptTokens);
  const tokens = sequence.evaluate(promptTokens.slice(result.cachedInputTokens), {
    temperature: sampling.temperature ?? 0.7,
    ...nodeLlamaCppFilters(sampling),
    ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
    grammarEvaluationState: new LlamaGrammarEvaluationState({ model, grammar }),
  });
  // Streamed as on the native loop: a call cut by the token limit shows as far as it got.
  const complete = yield* streamToolCall(tokens, input, result);
  result.finishReason = complete
    ? "tool_calls"
    : input.signal?.aborted === true
      ? "cancelled"
      : "length";
}
