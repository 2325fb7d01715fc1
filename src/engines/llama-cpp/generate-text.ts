// The fast path for plain text: evaluate the prompt's uncached suffix, then sample token by token
// straight from the sequence (or draft and verify with prompt lookup), with no chat-session
// machinery per token.
import type { LlamaContextSequence, LlamaModel, Token } from "node-llama-cpp";
import type { EngineEvent, FinishReason, SamplingOptions } from "../engine.ts";
import type { StreamClock } from "../stream-clock.ts";
import type { PromptLookup } from "./prompt-lookup/prompt-lookup.ts";
import { speculativeTokens } from "./speculative-decode.ts";
import { TextStreamDecoder } from "./text-stream-decoder.ts";

/** What every generation path gets: the sequence to run on, the rendered prompt and the limits. */
export interface GenerationInput {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  promptTokens: Token[];
  sampling: SamplingOptions;
  maxOutputTokens: number;
  clock: StreamClock;
  signal: AbortSignal | undefined;
  /** Prompt-lookup drafting for this request (a prediction, or speculation on every request). */
  lookup?: { drafts: PromptLookup; history: Token[] };
}

/** Filled in by a generation path as it runs; read by the engine for usage and the finish. */
export interface GenerationResult {
  finishReason: FinishReason;
  outputTokens: number;
  cachedInputTokens: number;
}

const DEFAULT_TEMPERATURE = 0.7;
/** Prompt tokens evaluated between abort checks: a cancelled request frees its sequence sooner. */
const PREFILL_SLICE_TOKENS = 64;

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

/**
 * Evaluates all but the last slice of the uncached prompt in slices, checking the signal between
 * them (one `evaluate` call cannot be interrupted): a superseded keystroke's long prompt stops
 * within a slice. Returns how many prompt tokens the sequence now holds.
 */
async function prefillInSlices(
  sequence: LlamaContextSequence,
  promptTokens: Token[],
  evaluated: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  if (signal === undefined) return evaluated;
  let held = evaluated;
  while (promptTokens.length - held > PREFILL_SLICE_TOKENS && !signal.aborted) {
    await sequence.evaluateWithoutGeneratingNewTokens(
      promptTokens.slice(held, held + PREFILL_SLICE_TOKENS),
    );
    held += PREFILL_SLICE_TOKENS;
  }
  return held;
}

export async function* generateText(
  input: GenerationInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { sequence, sampling, signal } = input;
  result.cachedInputTokens = await alignSequenceToPrompt(sequence, input.promptTokens);
  const held = await prefillInSlices(
    sequence,
    input.promptTokens,
    result.cachedInputTokens,
    signal,
  );
  if (signal?.aborted) {
    result.finishReason = "cancelled";
    return;
  }
  const decoder = new TextStreamDecoder(input.model, sampling.stop ?? []);
  const tokens =
    input.lookup === undefined
      ? sequence.evaluate(input.promptTokens.slice(held), {
          temperature: sampling.temperature ?? DEFAULT_TEMPERATURE,
          ...(sampling.topP === undefined ? {} : { topP: sampling.topP }),
          ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
        })
      : speculativeTokens({
          sequence,
          lookup: input.lookup.drafts,
          history: input.lookup.history,
          cachedTokens: held,
          sampling,
          defaultTemperature: DEFAULT_TEMPERATURE,
        });
  result.finishReason = "stop";
  try {
    for await (const token of tokens) {
      result.outputTokens += 1;
      input.clock.markToken();
      const step = decoder.push(token);
      if (step.text !== "") yield { type: "text-delta", text: step.text };
      if (step.stopped) return;
      if (signal?.aborted) {
        result.finishReason = "cancelled";
        break;
      }
      if (result.outputTokens >= input.maxOutputTokens) {
        result.finishReason = "length";
        break;
      }
    }
    const rest = decoder.flush();
    if (rest !== "") yield { type: "text-delta", text: rest };
  } finally {
    // Ends node-llama-cpp's generator so the sequence is free for the next request.
    await tokens.return(undefined);
  }
}
