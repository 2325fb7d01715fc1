// A tool call the model must make on node-llama-cpp's loop (tool_choice "required" or a named
// tool; the native loop has its own, generate-native-tools.ts): the call opens with
// the Hermes/Qwen `<tool_call>` tag and its JSON is sampled under a grammar built from the tools'
// JSON schemas, so it always parses and always names a real tool with valid arguments.
import { LlamaGrammarEvaluationState, type LlamaGrammar } from "node-llama-cpp";
import type { EngineEvent, ToolDefinition } from "../engine.ts";
import { toolCallSchema } from "./tool-calls/tool-call-schema.ts";
import {
  alignSequenceToPrompt,
  type GenerationInput,
  type GenerationResult,
} from "./generate-text.ts";

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
  const id = input.newToolCallId();
  let text = "";
  const tokens = sequence.evaluate(promptTokens.slice(result.cachedInputTokens), {
    temperature: sampling.temperature ?? 0.7,
    ...(sampling.topP === undefined ? {} : { topP: sampling.topP }),
    ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
    grammarEvaluationState: new LlamaGrammarEvaluationState({ model, grammar }),
  });
  result.finishReason = "length";
  try {
    for await (const token of tokens) {
      result.outputTokens += 1;
      input.clock.markToken();
      // The name is only known once the object is complete, so the call is sent whole at the end.
      text += model.detokenize([token], false);
      if (input.signal?.aborted) {
        result.finishReason = "cancelled";
        return;
      }
      if (result.outputTokens >= input.maxOutputTokens) return;
    }
  } finally {
    await tokens.return();
  }
  // The grammar ended the object: it parses by construction.
  const call = JSON.parse(text) as { name: string; arguments: unknown };
  const argumentsText = JSON.stringify(call.arguments ?? {});
  yield { type: "tool-call-start", id, name: call.name };
  yield { type: "tool-call-delta", id, argumentsDelta: argumentsText };
  yield { type: "tool-call-end", id, name: call.name, arguments: argumentsText };
  result.finishReason = "tool_calls";
}
