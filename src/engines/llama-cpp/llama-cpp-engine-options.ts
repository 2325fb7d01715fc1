// The embedded engine's options: the model, its context and sequences, threads and GPU, prompt
// lookup, batch dispatch, FIM, and which loop decodes.
import type { FimOrder, FimSplit } from "./completion-prompt.ts";
import type { GpuSetting } from "./load-model.ts";
import type { DeviceSamplingMode } from "./native-loop/device-sampling-mode.ts";
import type { GrammarSearch } from "./native-loop/generation-loop-addon.ts";
import type { DecodeLoop } from "./native-loop/open-native-loop.ts";
import type { PrefixCacheSettings } from "./prefix-cache/prefix-cache.ts";
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
   * Prompt-lookup decoding on every text request, not only those with a `prediction` (on the
   * native loop, the text of a tool turn too).
   */
  speculative?: boolean;
  /**
   * Prompt lookup inside tool calls on the native loop, drafting a call's JSON from the context
   * as JSON strings quote it (an edit copying a file). Default true; false drafts only in
   * requests that ask for lookup (a prediction, `speculative`).
   */
  toolCallLookup?: boolean;
  /** Longest prompt-lookup draft. Default 16. */
  maxDraftTokens?: number;
  /** Called after each request that drafted with prompt lookup (benchmarks read it). */
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
   * With the model's own FIM tokens: "psm" (default; the order Qwen2.5-Coder documents) or "spm",
   * the suffix before the prefix, so it stays cached while the user types (see FimOrder). Only
   * for a model trained on SPM too.
   */
  fimOrder?: FimOrder;
  /**
   * With the model's own FIM tokens: where the prefix ends. "line" (default): at the cursor line's
   * start, the typed part of the line after <|fim_middle|>, so a keystroke evaluates only what was
   * typed in either order; "cursor": at the cursor (see FimSplit).
   */
  fimSplit?: FimSplit;
  /**
   * Which loop decodes. "native" (the default when it is built): Spark's addon decodes and samples
   * on its own thread with a persistent threadpool and hands tokens over in batches; it runs plain
   * text, prompt lookup and tool turns in the <tool_call> JSON syntax. "node-llama-cpp":
   * `sequence.evaluate`, and LlamaChat for tool turns. Unset: SPARK_DECODE_LOOP, else native;
   * native falls back to node-llama-cpp when the addon is missing or fails to load.
   */
  decodeLoop?: DecodeLoop;
  /**
   * Where the native loop samples. "auto" (default): on CUDA and Metal on llama.cpp's backend, so
   * the vocabulary's logits stay on the GPU, for a request without a grammar or prompt lookup
   * whose sampler chain the backend runs; greedy tokens are the host's, a seed's tokens with a
   * temperature may differ from node-llama-cpp's where a draw falls within rounding of a boundary
   * (docs/gpu.md); on the host on the CPU backend (slower there) and on Vulkan (changing a
   * sequence's backend sampler corrupted the heap on lavapipe). "on": on the backend everywhere.
   * "off": always on the host. Unset: SPARK_DEVICE_SAMPLING, else auto.
   */
  deviceSampling?: DeviceSamplingMode;
  /**
   * How the native loop draws a tool call's token again when the grammar refused the model's
   * sample (see GrammarSearch); every choice gives the same tokens. Unset: "token-prefixes". The
   * bench and the tests set "full-vocabulary" to compare against what each refusal cost before.
   */
  grammarSearch?: GrammarSearch;
  /** Where the native addon is (tests point it at a missing file). */
  nativeLoopAddonPath?: string;
  /** A Jinja chat template used instead of the GGUF's (config's chat_template). */
  chatTemplate?: string;
  /**
   * "chat-wrapper" renders chat requests through node-llama-cpp's chat wrapper (the fallback when
   * native/chat-format is missing), for tests of that path; default: the model's own chat format
   * whenever it and the native loop are there.
   */
  chatPath?: "chat-format" | "chat-wrapper";
  /** native/chat-format's addon, for tests that run without it; default: the built one. */
  chatFormatAddonPath?: string;
  /**
   * The prefix cache on disk (`[cache]`): the KV state of prompts' system prefixes and finished
   * turns, loaded by any later process instead of computed. Native loop only. Unset: none.
   */
  prefixCache?: PrefixCacheSettings;
  signal?: AbortSignal;
}
