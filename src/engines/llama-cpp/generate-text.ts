// The fast path for plain text: evaluate the prompt's uncached suffix, then sample token by token
// straight from the sequence (or draft and verify with prompt lookup), with no chat-session
// machinery per token.
import { nodeLlamaCppFilters } from "./node-llama-cpp-sampling.ts";
import {
  LlamaGrammarEvaluationState,
  type LlamaContextSequence,
  type LlamaGrammar,
  type LlamaModel,
  type Token,
} from "node-llama-cpp";
import type { EngineEvent, SamplingOptions } from "../engine.ts";
import type { StreamClock } from "../stream-clock.ts";
import type { PromptLookup } from "./prompt-lookup/prompt-lookup.ts";
import { speculativeTokens } from "./speculative-decode.ts";
import { emitTextTokens } from "./emit-text-tokens.ts";
import type { GenerationResult } from "./generation-result.ts";

/** What every generation path gets: the sequence to run on, the rendered prompt and the limits. */
export interface GenerationInput {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  promptTokens: Token[];
  sampling: SamplingOptions;
  maxOutputTokens: number;
  clock: StreamClock;
  signal: AbortSignal | undefined;
  /** Tokens the output follows (an answer being continued): context for the first ones' text. */
  precedingTokens?: readonly Token[] | undefined;
  /** Prompt-lookup drafting for this request (a prediction, or speculation on every request). */
  lookup?: { drafts: PromptLookup; history: Token[] };
  /** Structured output: every token follows it, and its completion ends the answer. */
  grammar?: LlamaGrammar | undefined;
}

export const DEFAULT_TEMPERATURE = 0.7;

/** Reuses the cached prefix of the sequence; at least one prompt token is always evaluated. */
export async function alignSequenceToPrompt(
  sequence: LlamaContextSequence,
  promptTokens: Token[],
): Promise<number> {
  const { firstDifferentIndex } = sequence.compareContextTokens(promptTokens);
  const reusable = Math.min(firstDifferentIndex, promptTokens.length - 1);
  if (reusable < sequence.nextTokenIndex) {
    await sequence.eraseContextTokenRanges([{ start: reusable, end: sequence.nextTokenIndex }]);
  }
  return reusable;
}

/** Evaluates the whole prompt into the sequence and generates nothing (a warm-up). */
export async function prefillPrompt(
  sequence: LlamaContextSequence,
  promptTokens: Token[],
): Promise<number> {
  const cached = await alignSequenceToPrompt(sequence, promptTokens);
  await sequence.evaluateWithoutGeneratingNewTokens(promptTokens.slice(cached));
  return cached;
}

export async function* generateText(
  input: GenerationInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { sequence, sampling, grammar } = input;
  result.cachedInputTokens = await alignSequenceToPrompt(sequence, input.promptTokens);
  // A grammar that is complete allows only end of generation, which ends evaluate().
  const tokens =
    input.lookup === undefined
      ? sequence.evaluate(input.promptTokens.slice(result.cachedInputTokens), {
          temperature: sampling.temperature ?? DEFAULT_TEMPERATURE,
          ...nodeLlamaCppFilters(sampling),
          ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
          ...(grammar === undefined
            ? {}
            : {
                grammarEvaluationState: new LlamaGrammarEvaluationState({
                  model: input.model,
                  grammar,
                }),
              }),
        })
      : speculativeTokens({
          sequence,
          lookup: input.lookup.drafts,
          history: input.lookup.history,
          cachedTokens: result.cachedInputTokens,
          sampling,
          defaultTemperature: DEFAULT_TEMPERATURE,
        });
  yield* emitTextTokens(tokens, input, result);
}
