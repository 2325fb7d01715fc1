// A tool turn with structured output on the native loop (tool_choice auto and a text.format):
// the answer is either tool calls or JSON in the format, never free text. One token sampled
// without a grammar decides: `<tool_call>` and the turn goes on as calls; anything else is
// dropped and the answer is sampled again, under the format's grammar from its first token.
import type { EngineEvent } from "../../engine.ts";
import { DEFAULT_TEMPERATURE } from "../generate-text.ts";
import type { GenerationResult } from "../generation-result.ts";
import { generateNativeText } from "./generate-native-text.ts";
import { generateNativeWithTools, type NativeToolsInput } from "./generate-native-tools.ts";
import type { NativeGrammar } from "./native-sequence.ts";

export interface NativeStructuredToolsInput extends NativeToolsInput {
  /** The output format's grammar, for an answer that is not a call. */
  textGrammar: NativeGrammar;
}

export async function* generateNativeStructuredWithTools(
  input: NativeStructuredToolsInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { sequence, syntax, signal } = input;
  if (input.maxOutputTokens < 1) {
    result.finishReason = "length";
    return;
  }
  const decision = sequence.tokens(input.promptTokens, {
    maxTokens: 1,
    sampling: input.sampling,
    defaultTemperature: DEFAULT_TEMPERATURE,
    signal,
    stopTokens: [syntax.openToken],
  });
  for await (const _token of decision.tokens) {
    // Not the answer's first token: the grammar samples that one.
  }
  const cachedInputTokens = decision.cachedTokens();
  try {
    if (signal?.aborted === true) {
      result.finishReason = "cancelled";
    } else if (decision.stopToken() === syntax.openToken) {
      // Counted as the unforced tool loop counts it; the forced call's prompt holds it.
      result.outputTokens += 1;
      yield* generateNativeWithTools({ ...input, forceCall: true }, result);
    } else {
      yield* generateNativeText(
        { ...input, lookup: undefined, grammar: input.textGrammar },
        result,
      );
    }
  } finally {
    // What the prompt found cached is what the decision's job reused; the jobs after it reuse
    // the prompt the decision put there.
    result.cachedInputTokens = cachedInputTokens;
  }
}
