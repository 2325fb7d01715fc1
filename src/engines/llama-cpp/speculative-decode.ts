// Prompt-lookup decoding on node-llama-cpp's loop (the native loop verifies drafts on its own
// thread instead: native-loop/): each step evaluates the last token plus a draft from
// PromptLookup in one batch, samples at every position, keeps the draft up to the first token
// the model would not have produced, and erases the rest from the KV cache. node-llama-cpp's
// own predictor hook (3.22.1) validates only the first drafted token per step, so drafting
// longer through it only adds verification cost; `controlledEvaluate` gives every position.
import { nodeLlamaCppFilters, type NodeLlamaCppFilters } from "./node-llama-cpp-sampling.ts";
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import type { SamplingOptions } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { DraftStatistics, PromptLookup } from "./prompt-lookup/prompt-lookup.ts";

/** One request's prompt-lookup run, for benchmarks: what was looked up, generated and drafted. */
export interface SpeculationReport {
  /** The prompt, then the prediction (when the request had one). */
  lookupTokens: readonly Token[];
  predictionStart: number;
  /** The prompt and every generated token (end-of-generation excluded). */
  history: readonly Token[];
  promptTokens: number;
  maxDraftTokens: number;
  statistics: DraftStatistics;
}

export interface SpeculativeDecodeInput {
  sequence: LlamaContextSequence;
  lookup: PromptLookup;
  /** The whole prompt, to which each generated token is appended; the sequence already holds its first `cachedTokens`. */
  history: Token[];
  cachedTokens: number;
  sampling: SamplingOptions;
  /** Default temperature when the request names none (the plain path's default too). */
  defaultTemperature: number;
}

/**
 * Generated tokens, end-of-generation excluded, like `sequence.evaluate` yields them. Steps
 * without a draft run on node-llama-cpp's plain evaluation loop, which costs less per step than
 * `controlledEvaluate` (one sampler for the whole run), so text the lookup cannot draft decodes
 * at the plain speed.
 */
export async function* speculativeTokens(input: SpeculativeDecodeInput): AsyncGenerator<Token> {
  const { sequence, lookup, history } = input;
  const temperature = input.sampling.temperature ?? input.defaultTemperature;
  const filters = nodeLlamaCppFilters(input.sampling);
  // controlledEvaluate builds a sampler per call: distinct seeds keep its draws independent.
  let seed = input.sampling.seed ?? Math.floor(Math.random() * 2 ** 31);
  let pending: Token[] = history.slice(input.cachedTokens);
  let plain: AsyncGenerator<Token, void, Token | Token[] | undefined> | undefined;
  try {
    for (;;) {
      const room = sequence.contextSize - sequence.nextTokenIndex - pending.length;
      const draft = room > 1 ? lookup.draft(history).slice(0, room - 1) : [];
      let produced: Token[];
      if (draft.length === 0) {
        plain ??= sequence.evaluate(pending, { temperature, ...filters, seed });
        const step = await plain.next();
        if (step.done === true) return;
        produced = [step.value];
      } else {
        if (plain !== undefined) {
          // Its last token was yielded but not evaluated: it leads the draft's batch.
          await plain.return(undefined);
          plain = undefined;
        }
        seed = (seed + 1) % 2 ** 31;
        produced = await verifyDraft(sequence, pending, draft, { temperature, ...filters, seed });
      }
      for (const token of produced) {
        if (sequence.model.isEogToken(token)) return;
        history.push(token);
        yield token;
      }
      const last = produced.at(-1);
      if (last === undefined) throw new SparkError("internal_error", "llama.cpp sampled no token.");
      pending = [last];
    }
  } finally {
    await plain?.return(undefined);
  }
}

/**
 * Evaluates the pending tokens and the draft in one batch, sampling after the last pending token
 * and after every drafted one: the sampled tokens up to the first that differs from the draft
 * are what plain decoding would have produced. The rejected rest leaves the KV cache.
 */
async function verifyDraft(
  sequence: LlamaContextSequence,
  pending: readonly Token[],
  draft: readonly Token[],
  options: NodeLlamaCppFilters & { temperature: number; seed: number },
): Promise<Token[]> {
  const sampleAfter = (token: Token): [Token, { generateNext: object }] => [
    token,
    { generateNext: { token: true, options } },
  ];
  const results = await sequence.controlledEvaluate([
    ...pending.slice(0, -1),
    sampleAfter(pending.at(-1) as Token),
    ...draft.map(sampleAfter),
  ]);
  const sampledAt = (index: number): Token | undefined =>
    results[pending.length - 1 + index]?.next?.token ?? undefined;
  const produced: Token[] = [];
  let sampled = sampledAt(0);
  while (sampled !== undefined) {
    produced.push(sampled);
    if (sequence.model.isEogToken(sampled) || draft[produced.length - 1] !== sampled) break;
    sampled = sampledAt(produced.length);
  }
  const rejected = draft.length - Math.min(draft.length, produced.length - 1);
  if (rejected > 0) {
    await sequence.eraseContextTokenRanges([
      { start: sequence.nextTokenIndex - rejected, end: sequence.nextTokenIndex },
    ]);
  }
  return produced;
}
