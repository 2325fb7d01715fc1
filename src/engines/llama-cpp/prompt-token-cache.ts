// Tokenization of only what is new in a prompt: a chat prompt is rendered whole every turn, but
// llama.cpp tokenizes each run of text between two special tokens on its own (LlamaText.tokenize),
// so a run seen before (an earlier message) has the same tokens as before. This tokenizer
// remembers long runs, so a follow-up turn tokenizes its new messages instead of the whole
// conversation (~18 ms for a 120 KB conversation on the shared 2-core machine, every turn).
import type { BuiltinSpecialTokenValue, Token, Tokenizer } from "node-llama-cpp";

/** Shorter runs (template glue, short messages) cost less to tokenize than to remember. */
const MIN_CACHED_CHARACTERS = 256;
/** Tokens remembered across all runs (about 8 MB), least recently used first out. */
const DEFAULT_MAX_CACHED_TOKENS = 1 << 20;

interface CachedRun {
  /** How the run was tokenized: special tokens parsed, leading space trimmed. */
  specialTokens: boolean;
  options: "trimLeadingSpace" | undefined;
  tokens: readonly Token[];
}

export interface PromptTokenCacheStatistics {
  hits: number;
  misses: number;
  cachedTokens: number;
}

export class PromptTokenCache {
  /** Keyed by the run's text; Map order is recency (most recent last). */
  private readonly runs = new Map<string, CachedRun>();
  private readonly counts: PromptTokenCacheStatistics = { hits: 0, misses: 0, cachedTokens: 0 };
  /** A drop-in for the model's tokenizer, for `LlamaText.tokenize`. */
  readonly tokenizer: Tokenizer;

  constructor(
    private readonly base: Tokenizer,
    private readonly maxCachedTokens = DEFAULT_MAX_CACHED_TOKENS,
  ) {
    const tokenize = (
      text: string,
      specialTokens?: boolean | "builtin",
      options?: "trimLeadingSpace",
    ): Token[] =>
      specialTokens === "builtin"
        ? base(text as BuiltinSpecialTokenValue, "builtin")
        : this.tokenizeRun(text, specialTokens ?? false, options);
    this.tokenizer = Object.assign(tokenize, {
      detokenize: base.detokenize,
      isSpecialToken: (token: Token) => base.isSpecialToken(token),
      isEogToken: (token: Token) => base.isEogToken(token),
    });
  }

  get statistics(): PromptTokenCacheStatistics {
    return { ...this.counts };
  }

  private tokenizeRun(
    text: string,
    specialTokens: boolean,
    options: "trimLeadingSpace" | undefined,
  ): Token[] {
    if (text.length < MIN_CACHED_CHARACTERS) return this.base(text, specialTokens, options);
    const known = this.runs.get(text);
    if (known !== undefined && known.specialTokens === specialTokens && known.options === options) {
      this.runs.delete(text);
      this.runs.set(text, known);
      this.counts.hits += 1;
      // LlamaText.tokenize copies the tokens out; nothing writes to this array.
      return known.tokens as Token[];
    }
    this.counts.misses += 1;
    const tokens = this.base(text, specialTokens, options);
    if (tokens.length > this.maxCachedTokens) return tokens;
    if (known !== undefined) this.counts.cachedTokens -= known.tokens.length;
    this.runs.delete(text);
    this.runs.set(text, { specialTokens, options, tokens });
    this.counts.cachedTokens += tokens.length;
    for (const [oldText, run] of this.runs) {
      if (this.counts.cachedTokens <= this.maxCachedTokens) break;
      this.runs.delete(oldText);
      this.counts.cachedTokens -= run.tokens.length;
    }
    return tokens;
  }
}
