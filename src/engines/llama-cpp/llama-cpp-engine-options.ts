// The embedded engine's options: the model, its context and sequences, threads and GPU, prompt
// lookup, batch dispatch, FIM, and which loop decodes.
import type { GpuSetting } from "./load-model.ts";
import type { GrammarSearch } from "./native-loop/generation-loop-addon.ts";
import type { DecodeLoop } from "./native-loop/open-native-loop.ts";
import type { SpeculationReport } from "./speculative-decode.ts";

export interface LlamaCppEngineOptions {
  modelPath: string;
  /** The id this model is listed under; defaults to the file name without `.gguf`. */
  modelName?: string;
  /** Tokens per sequence. */
  contextSize?: number;
  sequences?: number;
  /** CPU threads; defaults to all cores but one when running on the CPU. */
  threads?: number;
  gpu?: GpuSetting;
  /**
   * Prompt-lookup decoding on every text request, not only those with a `prediction`; tool
   * turns decode plainly.
   */
  speculative?: boolean;
  /** Longest prompt-lookup draft. Default 16. */
  maxDraftTokens?: number;
  /** Called after each text request that drafted with prompt lookup (benchmarks read it). */
  onSpeculation?: (report: SpeculationReport) => void;
  batchSize?: number;
  /**
   * When a decode is dispatched. "adaptive" (default): at once when a single stream is generating
   * (nothing could join its batch, so waiting a macrotask only adds latency), on the next event
   * loop cycle when several are, so their tokens share one batch.
   */
  batchDispatch?: "adaptive" | "next-cycle";
  /**
   * Fill-in-the-middle prompt for a model without FIM tokens: `{prefix}` and `{suffix}` are
   * replaced, the rest may name the model's special tokens. Unused when the model has FIM tokens.
   */
  fimTemplate?: string;
  /**
   * Which loop decodes. "native" (the default when it is built): Spark's addon decodes and samples
   * on its own thread with a persistent threadpool and hands tokens over in batches; it runs plain
   * text, prompt lookup and tool turns in the <tool_call> JSON syntax. "node-llama-cpp":
   * `sequence.evaluate`, and LlamaChat for tool turns. Unset: SPARK_DECODE_LOOP, else native;
   * native falls back to node-llama-cpp when the addon is missing or fails to load.
   */
  decodeLoop?: DecodeLoop;
  /**
   * How the native loop draws a tool call's token again when the grammar refused the model's
   * sample (see GrammarSearch); every choice gives the same tokens. Unset: "token-prefixes". The
   * bench and the tests set "full-vocabulary" to compare against what each refusal cost before.
   */
  grammarSearch?: GrammarSearch;
  /** Where the native addon is (tests point it at a missing file). */
  nativeLoopAddonPath?: string;
  signal?: AbortSignal;
}
