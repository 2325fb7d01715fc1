// One sequence of the native context: JS mirrors the tokens its KV cache holds, so a prompt's
// cached prefix is known before the native thread starts, and streams the tokens sampled for it
// (drafting for the native verify step when the request uses prompt lookup).
import type { Token } from "node-llama-cpp";
import { SparkError } from "../../../protocol/spark-error.ts";
import type { SamplingOptions } from "../../engine.ts";
import { AsyncEventQueue } from "../async-event-queue.ts";
import type {
  AddonGenerateOptions,
  AddonGenerationContext,
  AddonGenerationEnd,
  AddonGenerationJob,
  Sampler,
  GrammarResamples,
  HostSampling,
  GrammarSearch,
} from "./generation-loop-addon.ts";

/** node-llama-cpp's defaults, so both loops sample alike. */
const DEFAULT_TOP_K = 40;
const DEFAULT_TOP_P = 0.95;

export interface NativeTokensOptions {
  maxTokens: number;
  sampling: SamplingOptions;
  defaultTemperature: number;
  signal?: AbortSignal | undefined;
  /** Prompt lookup: the job verifies a draft in each step. */
  speculation?: NativeSpeculation | undefined;
  /** Sampling one of these ends the job (see NativeTokens.stopToken); it is not cached. */
  stopTokens?: readonly Token[] | undefined;
  /** GBNF every sample must follow (a tool call's JSON); its completion ends the job. */
  grammar?: NativeGrammar | undefined;
  /** false: sample on the host even where the context samples on the device. */
  deviceSampling?: boolean | undefined;
}

export interface NativeGrammar {
  text: string;
  root: string;
  /** Where a refused sample is drawn again; unset: the addon's default ("token-prefixes"). */
  search?: GrammarSearch | undefined;
  /** Free text until a trigger (a chat format's tool calls); unset: the grammar applies at once. */
  lazy?: { patterns: readonly string[]; tokens: readonly Token[] } | undefined;
  /** Tokens the grammar accepts first: what the prompt already holds of its text. */
  prefill?: readonly Token[] | undefined;
  /**
   * A lazy grammar's reasoning tags, as llama-server's reasoning-budget sampler gates it: between
   * start and an end tag it neither constrains nor reads the output (a trigger written while the
   * model thinks starts no call), and the end tag is fed to it then. `prefill` (the generation
   * prompt) is read first: a prompt ending with the start tag opens the block.
   */
  thinking?:
    | { start: readonly Token[]; ends: readonly (readonly Token[])[]; prefill: readonly Token[] }
    | undefined;
}

/** Drafting for a speculative job, on the JS thread between its steps. */
export interface NativeSpeculation {
  /** Every step's tokens, in order (end of generation excluded). */
  record(sampled: Uint32Array): void;
  /** The tokens expected next, verified in the job's next step (none: a plain step). */
  nextDraft(): readonly Token[];
}

export interface NativeTokens {
  /** Sampled tokens; return() stops the native job and waits until it ended (one step at most). */
  tokens: AsyncGenerator<Token, void, undefined>;
  /**
   * Prompt tokens reused from the cache: what was planned, then (once the job ended) what the
   * addon really reused, which is 0 when the cache could not be trimmed to the plan.
   */
  cachedTokens: () => number;
  /** Decode steps that sampled for the job, once it ended. */
  steps: () => number;
  /** The stop token that ended the job, once it ended (undefined: another end). */
  stopToken: () => Token | undefined;
  /** Where its tokens were sampled, once it ended. */
  sampler: () => Sampler | undefined;
  /** Under a grammar, once the job ended: its refused samples, by where each was drawn again. */
  grammarResamples: () => GrammarResamples | undefined;
  /** Sampled on the host, once the job ended: the sampler's cost on the decode thread. */
  hostSampling: () => HostSampling | undefined;
}

export class NativeSequence {
  /** What the sequence's KV cache holds, as far as JS knows (exact between jobs). */
  private cached: Token[] = [];
  private running = false;
  /** Where the jobs since resetSamplers() sampled (a stream's report). */
  private samplers = new Set<Sampler>();

  constructor(
    private readonly context: AddonGenerationContext,
    readonly id: number,
    readonly contextSize: number,
  ) {}

  /** The tokens its KV cache holds once a job ended: the job's prompt, then what it sampled. */
  get cachedTokens(): readonly Token[] {
    return this.cached;
  }

  /** How many leading tokens of `tokens` the cache holds (the pool matches prompts by it). */
  sharedPrefixLength(tokens: readonly Token[]): number {
    return commonPrefixLength(this.cached, tokens);
  }

  /** Where the jobs since resetSamplers() sampled: "device", "host", or both. */
  samplersUsed(): Sampler[] {
    return [...this.samplers].sort();
  }

  /** A new stream on the sequence: its report starts empty. */
  resetSamplers(): void {
    this.samplers.clear();
  }

  /** Another cache scope used it: its next job starts from an empty cache. */
  forget(): void {
    this.cached = [];
  }

  /**
   * A copy of its KV state and the tokens it holds (the prefix cache on disk writes them), taken
   * on the decode thread before any later job on it begins; call between jobs. Rejects above
   * maxBytes.
   */
  saveState(maxBytes: number): Promise<{ tokens: Token[]; state: Buffer }> {
    if (this.running) throw new SparkError("engine_busy", `Native sequence ${this.id} is busy.`);
    const tokens = [...this.cached];
    return new Promise((resolve, reject) => {
      this.context.saveSequence(this.id, maxBytes, (error, state) => {
        if (error !== null || state === undefined) {
          reject(new SparkError("internal_error", error ?? "no state was saved"));
        } else resolve({ tokens, state });
      });
    });
  }

  /** Replaces its cache with a saved state holding `tokens`; on failure its cache is empty. */
  restoreState(tokens: readonly Token[], state: Buffer): Promise<void> {
    if (this.running) throw new SparkError("engine_busy", `Native sequence ${this.id} is busy.`);
    this.cached = [];
    return new Promise((resolve, reject) => {
      this.context.restoreSequence(this.id, state, (error) => {
        if (error !== null) reject(new SparkError("checksum_mismatch", error));
        else {
          this.cached = [...tokens];
          resolve();
        }
      });
    });
  }

  /** Evaluates the prompt into the cache and samples nothing; returns the tokens reused. */
  async prefill(promptTokens: Token[], signal?: AbortSignal): Promise<number> {
    const { tokens, cachedTokens } = this.generate(promptTokens, promptTokens.length, {
      maxTokens: 0,
      sampling: {},
      defaultTemperature: 0,
      signal,
    });
    for await (const _token of tokens) {
      // A prefill samples nothing.
    }
    return cachedTokens();
  }

  /** Starts a job sampling up to maxTokens after the prompt's uncached suffix. */
  tokens(promptTokens: Token[], options: NativeTokensOptions): NativeTokens {
    // At least one prompt token is evaluated: its logits give the first sampled token.
    return this.generate(promptTokens, promptTokens.length - 1, options);
  }

  private generate(
    promptTokens: Token[],
    reuseLimit: number,
    options: NativeTokensOptions,
  ): NativeTokens {
    if (this.running) throw new SparkError("engine_busy", `Native sequence ${this.id} is busy.`);
    const { sampling, speculation } = options;
    // Before the sequence is taken: a lookup that throws leaves it free.
    const firstDraft = speculation === undefined ? undefined : speculation.nextDraft();
    this.running = true;
    const reuse = Math.max(0, Math.min(commonPrefixLength(this.cached, promptTokens), reuseLimit));
    const queue = new AsyncEventQueue<Uint32Array>();
    // The batches as they came (no per-token copy): the cache mirror is rebuilt from them once.
    const sampled: Uint32Array[] = [];
    let end: AddonGenerationEnd | undefined;
    let received = 0;
    let onEnd: () => void = () => {};
    const ended = new Promise<void>((resolve) => (onEnd = resolve));
    // A grammar that does not parse throws here, leaving the sequence free.
    const job = this.startJob(
      {
        sequence: this.id,
        tokens: Uint32Array.from(promptTokens),
        reuse,
        maxTokens: options.maxTokens,
        temperature: sampling.temperature ?? options.defaultTemperature,
        topK: sampling.topK ?? DEFAULT_TOP_K,
        topP: sampling.topP ?? DEFAULT_TOP_P,
        minP: sampling.minP ?? 0,
        seed: sampling.seed ?? Math.floor(Date.now() / 1000),
        ...(firstDraft === undefined
          ? {}
          : { speculative: true, draft: Uint32Array.from(firstDraft) }),
        ...(options.stopTokens === undefined || options.stopTokens.length === 0
          ? {}
          : { stopTokens: Uint32Array.from(options.stopTokens) }),
        ...(options.grammar === undefined
          ? {}
          : {
              grammar: options.grammar.text,
              grammarRoot: options.grammar.root,
              ...(options.grammar.search === undefined
                ? {}
                : { grammarSearch: options.grammar.search }),
              ...(options.grammar.lazy === undefined
                ? {}
                : {
                    grammarLazy: true,
                    grammarTriggerPatterns: [...options.grammar.lazy.patterns],
                    grammarTriggerTokens: Uint32Array.from(options.grammar.lazy.tokens),
                    ...(options.grammar.thinking === undefined
                      ? {}
                      : {
                          thinkingStart: Uint32Array.from(options.grammar.thinking.start),
                          thinkingEnds: options.grammar.thinking.ends.map((end) =>
                            Uint32Array.from(end),
                          ),
                          thinkingPrefill: Uint32Array.from(options.grammar.thinking.prefill),
                        }),
                  }),
              ...(options.grammar.prefill === undefined || options.grammar.prefill.length === 0
                ? {}
                : { grammarPrefill: Uint32Array.from(options.grammar.prefill) }),
            }),
        ...(options.deviceSampling === undefined ? {} : { deviceSampling: options.deviceSampling }),
      },
      (batch, jobEnd) => {
        if (batch.length > 0) {
          received += batch.length;
          sampled.push(batch);
          speculation?.record(batch);
          queue.push(batch);
        }
        if (jobEnd === undefined) {
          // After a step that verified a draft the job waits for this answer; drafting here,
          // before the consumer runs, keeps that wait to the lookup itself.
          if (speculation !== undefined) postDraft(speculation);
          return;
        }
        end = jobEnd;
        if (jobEnd.sampling !== undefined) this.samplers.add(jobEnd.sampling);
        this.cached = cacheContents(promptTokens, sampled, jobEnd.cacheTokens);
        this.running = false;
        if (jobEnd.reason === "error") {
          queue.fail(
            new SparkError("internal_error", `llama.cpp failed: ${jobEnd.error ?? "unknown"}`),
          );
        } else queue.close();
        onEnd();
      },
    );
    const postDraft = (drafting: NativeSpeculation): void => {
      try {
        job.draft(Uint32Array.from(drafting.nextDraft()), received);
      } catch (error) {
        // The job waits for this answer: end it, and the stream with the lookup's error.
        queue.fail(SparkError.from(error));
        job.abort();
      }
    };
    const abort = (): void => job.abort();
    options.signal?.addEventListener("abort", abort, { once: true });
    if (options.signal?.aborted === true) abort();
    async function* tokens(): AsyncGenerator<Token, void, undefined> {
      try {
        for await (const batch of queue) {
          for (const token of batch) yield token as Token;
        }
        if (end?.reason === "disposed") {
          throw new SparkError("engine_disposed", "The llama-cpp engine was disposed.");
        }
      } finally {
        options.signal?.removeEventListener("abort", abort);
        if (end === undefined) abort();
        await ended;
      }
    }
    return {
      tokens: tokens(),
      cachedTokens: () => end?.reused ?? reuse,
      steps: () => end?.steps ?? 0,
      stopToken: () => end?.stopToken as Token | undefined,
      sampler: () => end?.sampling,
      grammarResamples: () => end?.grammarResamples,
      hostSampling: () => end?.hostSampling,
    };
  }

  /** Starts the native job; when the addon refuses it, the sequence is free again. */
  private startJob(
    options: AddonGenerateOptions,
    onTokens: (tokens: Uint32Array, end: AddonGenerationEnd | undefined) => void,
  ): AddonGenerationJob {
    let job: AddonGenerationJob;
    try {
      job = this.context.generate(options, onTokens);
    } catch (error) {
      this.running = false;
      throw new SparkError(
        "internal_error",
        `The native generation loop refused the job: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
    return job;
  }
}

/** What the KV cache holds after a job: the prompt, then the sampled tokens, `count` in all. */
function cacheContents(prompt: Token[], sampled: Uint32Array[], count: number): Token[] {
  const tokens = prompt.slice(0, count);
  for (const batch of sampled) {
    for (const token of batch) {
      if (tokens.length >= count) return tokens;
      tokens.push(token as Token);
    }
  }
  return tokens;
}

function commonPrefixLength(left: readonly Token[], right: readonly Token[]): number {
  const limit = Math.min(left.length, right.length);
  let index = 0;
  while (index < limit && left[index] === right[index]) index += 1;
  return index;
}
