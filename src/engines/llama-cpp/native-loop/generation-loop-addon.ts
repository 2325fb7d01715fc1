// Finds and loads Spark's native generation loop (native/generation-loop, built at npm install),
// or says why it is not there, so the engine can fall back to node-llama-cpp's loop.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface AddonContextOptions {
  modelPath: string;
  /** Tokens per sequence. */
  contextSize: number;
  sequences: number;
  threads: number;
  batchSize: number;
  gpuLayers: number;
  /** As node-llama-cpp's context has it; absent or "auto": llama.cpp decides. */
  flashAttention?: boolean | "auto";
  /**
   * Whether jobs may sample on llama.cpp's backend (the device computing the logits): a job
   * without a grammar or prompt lookup whose whole chain the backend runs. Default true.
   */
  deviceSampling?: boolean;
}

export interface AddonGenerateOptions {
  sequence: number;
  tokens: Uint32Array;
  /** Leading prompt tokens the sequence's KV cache already holds. */
  reuse: number;
  /** 0 evaluates the prompt and samples nothing. */
  maxTokens: number;
  temperature: number;
  topK: number;
  topP: number;
  /** 0 or absent: no min-p filter. */
  minP?: number;
  seed: number;
  /**
   * Prompt lookup: after a step that verified a draft, its tokens come at once and the job waits
   * (other jobs decode on) until `draft()` answers with the tokens its next step verifies; after
   * a step without one it decodes on, and a draft posted meanwhile joins a later step.
   */
  speculative?: boolean;
  /** A speculative job's first draft, verified in the batch with the prompt's last token. */
  draft?: Uint32Array;
  /** Sampling one ends the job with reason "stop" and `stopToken`; it is not cached or delivered. */
  stopTokens?: Uint32Array;
  /**
   * GBNF constraining every sample (generate() throws when it does not parse); once complete it
   * allows only end of generation, which ends the job. Not combined with `speculative`.
   */
  grammar?: string;
  /** The grammar's start rule; default "root". */
  grammarRoot?: string;
  /**
   * Lazy (llama-server's grammar_lazy): every token is free until a trigger pattern matches the
   * output so far (the grammar then reads it from the pattern's first group) or a trigger token is
   * sampled (read from that token on); then the grammar constrains the rest.
   */
  grammarLazy?: boolean;
  /** ECMAScript-compatible std::regex patterns, matched against the whole output so far. */
  grammarTriggerPatterns?: string[];
  grammarTriggerTokens?: Uint32Array;
  /**
   * A lazy grammar's reasoning tags (token ids): from the start tag to an end tag the grammar is
   * neither applied nor fed, then fed the end tag; thinkingPrefill (the generation prompt) is read
   * first, so a prompt ending with the start tag opens the block.
   */
  thinkingStart?: Uint32Array;
  thinkingEnds?: Uint32Array[];
  thinkingPrefill?: Uint32Array;
  /** Tokens the grammar accepts before the job samples (what the prompt already holds of it). */
  grammarPrefill?: Uint32Array;
  /** false: this job samples on the host even where the context's backend could. */
  deviceSampling?: boolean;
  /** How a sample the grammar refused is drawn again (GrammarSearch); default "token-prefixes". */
  grammarSearch?: GrammarSearch;
}

/**
 * Where the native loop looks for the grammar's allowed tokens after it refused a sample, each
 * giving the same tokens: "token-prefixes" (default) checks the top 64 candidates by logit, then
 * the tokens whose prefixes the grammar accepts, then the whole vocabulary; "top-candidates" the
 * top 64, 512 and 4,096, then the vocabulary; "full-vocabulary" every token at once (what every
 * refusal cost before; the bench and the tests compare against it).
 */
export type GrammarSearch = "token-prefixes" | "top-candidates" | "full-vocabulary";

export interface AddonGenerationJob {
  /** Ends the job at the start of its next step (within one step). */
  abort(): void;
  /**
   * A speculative job's next draft (empty: none), answered after each delivery; `at` is how many
   * generated tokens JS had received (the native thread aligns a draft made a few tokens ago).
   */
  draft(tokens: Uint32Array, at: number): void;
}

/** How a native generation ended; delivered once, with its last tokens. */
export interface AddonGenerationEnd {
  reason: "stop" | "length" | "aborted" | "disposed" | "error";
  /** Tokens the sequence's KV cache holds now. */
  cacheTokens: number;
  reused: number;
  /** Decode steps that sampled for the job (a draft's verification counts once). */
  steps: number;
  error?: string;
  /** The stop token that ended the job, when one did. */
  stopToken?: number;
  /** Where its tokens were sampled: llama.cpp's backend, or the host; absent for a prefill. */
  sampling?: Sampler;
  /** Under a grammar: the samples it refused, by where each was drawn again. */
  grammarResamples?: GrammarResamples;
  /** Sampled on the host: the sampler's cost on the decode thread. */
  hostSampling?: HostSampling;
}

/** Host sampling on the decode thread over a job (its grammar's work included). */
export interface HostSampling {
  samples: number;
  /** Wall time in the sampler on the decode thread. */
  microseconds: number;
  /** Samples whose top-k ties sent to llama.cpp's sort of the whole vocabulary. */
  topKFallbacks: number;
}

/** Refused samples drawn again among the top candidates, the prefix walk, the whole vocabulary. */
export interface GrammarResamples {
  top: number;
  prefixes: number;
  vocabulary: number;
  /** The grammar's CPU time on the decode thread: every check, sample drawn again and accept. */
  microseconds: number;
}

/** Where the native loop sampled a job's tokens. */
export type Sampler = "device" | "host";

export interface AddonGenerationContext {
  load(options: AddonContextOptions): Promise<void>;
  generate(
    options: AddonGenerateOptions,
    onTokens: (tokens: Uint32Array, end: AddonGenerationEnd | undefined) => void,
  ): AddonGenerationJob;
  /**
   * The sequence's KV state (llama_state_seq_get_data), copied on the decode thread before any job
   * queued later begins; refused (an error) above maxBytes (0: no limit). No job may run on it.
   */
  saveSequence(
    sequence: number,
    maxBytes: number,
    answer: (error: string | null, state: Buffer | undefined) => void,
  ): void;
  /** Replaces the sequence's cache with a saved state (llama_state_seq_set_data). */
  restoreSequence(
    sequence: number,
    state: Buffer,
    answer: (error: string | null, bytesRead: number) => void,
  ): void;
  dispose(): void;
}

/** A device in the bound libggml's backend registry. */
export interface AddonBackendDevice {
  name: string;
  description: string;
  type: "cpu" | "gpu" | "igpu" | "accel";
}

/** The llama.cpp libraries the addon calls, as bindLlama resolved them. */
export interface AddonLlamaBinding {
  llamaLibrary: string;
  ggmlLibrary: string;
  devices: AddonBackendDevice[];
}

export interface GenerationLoopAddon {
  /**
   * Resolves llama.cpp's functions through node-llama-cpp's loaded binding (its path), so the loop
   * calls the libllama node-llama-cpp loaded, whichever package it came from. Required before
   * load(); throws when the binding is not loaded, lacks a function, or the addon is already bound
   * to other libraries in this process.
   */
  bindLlama(bindingPath: string): AddonLlamaBinding;
  /** The bound registry's devices now (empty before bindLlama). */
  backendDevices(): AddonBackendDevice[];
  GenerationContext: new () => AddonGenerationContext;
  /**
   * A file's bytes from `offset`, mapped read-only (not copied): a saved prefix for
   * restoreSequence. Rejects "truncated state" when the file is shorter. Absent from addons built
   * before it (the prefix cache then reads the file).
   */
  mapFile?: MapFile;
}

export type MapFile = (path: string, offset: number, length: number) => Promise<Buffer>;

export type GenerationLoopLoad =
  { addon: GenerationLoopAddon; path: string } | { addon?: undefined; reason: string };

export const defaultAddonPath = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../../../native/generation-loop/build/Release/spark_generation_loop.node",
);

const loaded = new Map<string, GenerationLoopLoad>();

/**
 * Loads the addon once per path. It links no llama.cpp library, so it loads before or after
 * node-llama-cpp; it can run only once bound to node-llama-cpp's (findNativeLoop).
 */
export function loadGenerationLoop(path = defaultAddonPath): GenerationLoopLoad {
  let result = loaded.get(path);
  if (result !== undefined) return result;
  if (!existsSync(path)) {
    result = {
      reason:
        `the native generation loop is not built (${path} is missing): ` +
        "run `npm rebuild spark` or `npx tsx scripts/build-native-loop.ts` to see why",
    };
  } else {
    try {
      result = { addon: createRequire(import.meta.url)(path) as GenerationLoopAddon, path };
    } catch (error) {
      result = { reason: `the native generation loop did not load: ${String(error)}` };
    }
  }
  loaded.set(path, result);
  return result;
}
