// Plain text on the native loop: the prompt's uncached suffix and every sampled token are decoded
// on the native thread; tokens reach JS in batches and become text deltas here.
import type { EngineEvent } from "../../engine.ts";
import { emitTextTokens, type EmitInput } from "../emit-text-tokens.ts";
import { DEFAULT_TEMPERATURE, type GenerationResult } from "../generate-text.ts";
import type { Token } from "node-llama-cpp";
import type { NativeSequence } from "./native-sequence.ts";

export interface NativeTextInput extends EmitInput {
  sequence: NativeSequence;
  promptTokens: Token[];
}

export async function* generateNativeText(
  input: NativeTextInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { tokens, cachedTokens } = input.sequence.tokens(input.promptTokens, {
    maxTokens: input.maxOutputTokens,
    sampling: input.sampling,
    defaultTemperature: DEFAULT_TEMPERATURE,
    signal: input.signal,
  });
  result.cachedInputTokens = cachedTokens;
  yield* emitTextTokens(tokens, input, result);
}
