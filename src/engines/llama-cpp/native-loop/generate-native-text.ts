// Plain text on the native loop: the prompt's uncached suffix and every sampled token are decoded
// on the native thread; tokens reach JS in batches and become text deltas here. With prompt lookup,
// JS drafts after each step and the native thread verifies the draft in the next.
import type { EngineEvent } from "../../engine.ts";
import { emitTextTokens, type EmitInput } from "../emit-text-tokens.ts";
import { DEFAULT_TEMPERATURE } from "../generate-text.ts";
import type { GenerationResult } from "../generation-result.ts";
import type { Token } from "node-llama-cpp";
import type { PromptLookup } from "../prompt-lookup/prompt-lookup.ts";
import type { NativeGrammar, NativeSequence, NativeSpeculation } from "./native-sequence.ts";

export interface NativeTextInput extends EmitInput {
  sequence: NativeSequence;
  promptTokens: Token[];
  /** Prompt lookup: `history` is the prompt, and each generated token is appended to it. */
  lookup?: { drafts: PromptLookup; history: Token[] } | undefined;
  /** Structured output: every token follows it, and its completion ends the job. */
  grammar?: NativeGrammar | undefined;
}

export async function* generateNativeText(
  input: NativeTextInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const run = input.sequence.tokens(input.promptTokens, {
    maxTokens: input.maxOutputTokens,
    sampling: input.sampling,
    defaultTemperature: DEFAULT_TEMPERATURE,
    signal: input.signal,
    speculation: input.lookup === undefined ? undefined : lookupSpeculation(input.lookup),
    grammar: input.grammar,
  });
  result.cachedInputTokens = run.cachedTokens();
  try {
    yield* emitTextTokens(run.tokens, input, result);
  } finally {
    // emitTextTokens waited for the job's end: what the addon really reused is known now.
    result.cachedInputTokens = run.cachedTokens();
  }
}

/** Drafts for a job from the lookup, recording what it samples into the history. */
export function lookupSpeculation(lookup: {
  drafts: PromptLookup;
  history: Token[];
}): NativeSpeculation {
  return {
    record: (sampled) => {
      for (const token of sampled) lookup.history.push(token as Token);
    },
    nextDraft: () => lookup.drafts.draft(lookup.history),
  };
}
