// The embedded engine: one llama.cpp model and context in this process, several sequences, a
// sessionKey keeping its sequence's KV cache across turns, and prompt-lookup speculative decoding.
import { basename } from "node:path";
import { randomUUID } from "node:crypto";
import {
  resolveChatWrapper,
  type ChatHistoryItem,
  type ChatWrapper,
  type LlamaContext,
  type LlamaGrammar,
  type Token,
} from "node-llama-cpp";
import type {
  Engine,
  EngineEvent,
  EngineRequest,
  FinishReason,
  EngineStreamOptions,
  ModelInfo,
  Usage,
} from "../engine.ts";
import { endStream } from "../end-stream.ts";
import { StreamClock } from "../stream-clock.ts";
import { rejectStreamRequest } from "../validate-request.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { toChatHistory } from "./chat-history.ts";
import { findFimTokens, renderCompletionPrompt, type FimTokens } from "./completion-prompt.ts";
import { generateText, prefillPrompt, type GenerationResult } from "./generate-text.ts";
import { generateForcedToolCall } from "./generate-forced-tool-call.ts";
import { generateWithTools, toChatModelFunctions } from "./generate-with-tools.ts";
import { defaultCpuThreads, loadModel, type GpuSetting, type LoadedModel } from "./load-model.ts";
import { PromptLookup } from "./prompt-lookup/prompt-lookup.ts";
import { SequencePool, type SequenceLease } from "./sequence-pool.ts";
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
  signal?: AbortSignal;
}

const DEFAULT_CONTEXT_SIZE = 8192;
const DEFAULT_SEQUENCES = 4;
const MAX_CACHED_GRAMMARS = 32;
const DEFAULT_MAX_DRAFT_TOKENS = 16;

export class LlamaCppEngine implements Engine {
  readonly kind = "llama-cpp";
  readonly modelName: string;
  private disposed = false;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  /** Characters per token, for prompt lookup's minimum match length. */
  private readonly tokenCharacters = new Map<Token, number>();
  private readonly pool: SequencePool;
  private readonly fimTokens: FimTokens | undefined;

  private constructor(
    private readonly loaded: LoadedModel,
    private readonly context: LlamaContext,
    private readonly chatWrapper: ChatWrapper,
    private readonly options: LlamaCppEngineOptions,
    /** Streams currently generating; read by the context's batch dispatch schedule. */
    private readonly activity: { streams: number },
  ) {
    this.modelName = options.modelName ?? basename(options.modelPath).replace(/\.gguf$/i, "");
    // No node-llama-cpp token predictor: prompt lookup runs in generateText (see
    // speculative-decode.ts), and a sequence without one evaluates on the plain path.
    this.pool = new SequencePool(context, (owner) => owner.getSequence());
    this.fimTokens = findFimTokens(loaded.model);
  }

  /** Whether the model's vocabulary has its own fill-in-the-middle tokens. */
  get hasFimTokens(): boolean {
    return this.fimTokens !== undefined;
  }

  static async create(options: LlamaCppEngineOptions): Promise<LlamaCppEngine> {
    const loaded = await loadModel(options.modelPath, {
      ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const threads = options.threads ?? (loaded.onGpu ? undefined : defaultCpuThreads());
    const activity = { streams: 0 };
    const dispatchSchedule =
      options.batchDispatch === "next-cycle"
        ? undefined
        : (dispatch: () => void): void => {
            if (activity.streams <= 1) queueMicrotask(dispatch);
            else setImmediate(dispatch);
          };
    let context: LlamaContext;
    try {
      context = await loaded.model.createContext({
        contextSize: Math.min(
          options.contextSize ?? DEFAULT_CONTEXT_SIZE,
          loaded.model.trainContextSize,
        ),
        sequences: options.sequences ?? DEFAULT_SEQUENCES,
        ...(threads === undefined ? {} : { threads }),
        ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
        ...(dispatchSchedule === undefined ? {} : { batching: { dispatchSchedule } }),
        ...(options.signal === undefined ? {} : { createSignal: options.signal }),
      });
    } catch (error) {
      await loaded.model.dispose();
      throw new SparkError(
        "model_load_failed",
        `Could not create a context for ${options.modelPath}: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
    const chatWrapper = resolveChatWrapper(loaded.model);
    return new LlamaCppEngine(loaded, context, chatWrapper, options, activity);
  }

  get contextSize(): number {
    return this.context.contextSize;
  }

  /** Raising context_size helps only up to the model's trained context; past it, say so. */
  private contextOverflowMessage(promptTokens: number, contextSize: number): string {
    const configured = this.options.contextSize ?? DEFAULT_CONTEXT_SIZE;
    const trained = this.loaded.model.trainContextSize;
    const base = `The prompt is ${promptTokens} tokens but the context holds ${contextSize}`;
    if (configured > trained) {
      return (
        `${base}: the model was trained for ${trained} tokens, so context_size = ${configured} ` +
        `is capped to it. Shorten the conversation or use a model with a longer context.`
      );
    }
    return `${base}; shorten the conversation or raise context_size (up to the model's ${trained}).`;
  }

  get threads(): number {
    return this.context.currentThreads;
  }

  get chatWrapperName(): string {
    return this.chatWrapper.wrapperName;
  }

  /** Renders messages with the model's chat template, ready to generate the assistant's turn. */
  tokenizePrompt(history: readonly ChatHistoryItem[]): Token[] {
    const { contextText } = this.chatWrapper.generateContextState({
      chatHistory: [...history, { type: "model", response: [] }],
    });
    return contextText.tokenize(this.loaded.model.tokenizer);
  }

  countTokens(text: string): number {
    return this.loaded.model.tokenize(text).length;
  }

  async listModels(): Promise<ModelInfo[]> {
    return [{ id: this.modelName, engine: this.kind, contextLength: this.context.contextSize }];
  }

  async *stream(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): AsyncGenerator<EngineEvent> {
    const clock = new StreamClock();
    const usage: Usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    const finish = (reason: FinishReason, error?: SparkError): Generator<EngineEvent, void> =>
      endStream(clock, usage, reason, error);
    const invalid = rejectStreamRequest("llama-cpp", this.disposed, request, {
      completions: true,
    });
    if (invalid !== undefined) return yield* finish("error", invalid);

    let lease: SequenceLease;
    try {
      // A document's completions wait for its own sequence (the previous keystroke's request is
      // being cancelled) rather than take another one without its cache.
      lease = await this.pool.acquire(request.sessionKey, request.cacheScope, options.signal, {
        waitForOwn: request.completion !== undefined,
      });
    } catch (error) {
      const sparkError = SparkError.from(error);
      return yield* sparkError.code === "cancelled"
        ? finish("cancelled")
        : finish("error", sparkError);
    }
    clock.markWorkStarted();
    this.activity.streams += 1;
    try {
      // Another tenant's tokens would be reused as a prefix, and show in cached tokens: clear them.
      if (lease.foreignCache) await lease.sequence.clearHistory();
      yield* this.generate(request, lease, clock, usage, options.signal, finish);
    } catch (error) {
      yield* finish("error", SparkError.from(error));
    } finally {
      this.activity.streams -= 1;
      lease.release();
    }
  }

  private async *generate(
    request: EngineRequest,
    lease: SequenceLease,
    clock: StreamClock,
    usage: Usage,
    signal: AbortSignal | undefined,
    finish: (reason: FinishReason, error?: SparkError) => Generator<EngineEvent>,
  ): AsyncGenerator<EngineEvent> {
    const { sequence } = lease;
    const model = this.loaded.model;
    const history = request.completion === undefined ? toChatHistory(request.messages) : [];
    const choice = request.toolChoice ?? "auto";
    const tools =
      choice === "none" || request.completion !== undefined
        ? []
        : (request.tools ?? []).filter(
            (tool) => typeof choice !== "object" || tool.name === choice.name,
          );
    if (typeof choice === "object" && tools.length === 0) {
      yield* finish(
        "error",
        new SparkError(
          "invalid_request",
          `tool_choice names "${choice.name}", which is not among the request's tools.`,
        ),
      );
      return;
    }
    const hasTools = tools.length > 0;
    const forceToolCall = hasTools && choice !== "auto";
    const promptTokens = request.completion
      ? renderCompletionPrompt(model, request.completion, this.fimTokens, this.options.fimTemplate)
      : hasTools
        ? this.chatWrapper
            .generateContextState({
              chatHistory: [...history, { type: "model", response: [] }],
              availableFunctions: toChatModelFunctions(tools),
            })
            .contextText.tokenize(model.tokenizer)
        : this.tokenizePrompt(history);
    usage.inputTokens = promptTokens.length;
    const room = sequence.contextSize - promptTokens.length;
    if (room <= 0) {
      yield* finish(
        "error",
        new SparkError(
          "context_length_exceeded",
          this.contextOverflowMessage(promptTokens.length, sequence.contextSize),
        ),
      );
      return;
    }
    if (request.prefillOnly === true) {
      usage.cachedInputTokens = await prefillPrompt(sequence, promptTokens);
      yield* finish("stop");
      return;
    }
    const maxOutputTokens = Math.min(request.sampling?.maxOutputTokens ?? room, room);
    const sampling = request.sampling ?? {};

    const newToolCallId = (): string => `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
    const input = { model, sequence, promptTokens, sampling, maxOutputTokens, clock, signal };
    // Tool turns decode plainly: their generation runs inside node-llama-cpp's LlamaChat.
    const lookup = hasTools ? undefined : this.promptLookupFor(request, promptTokens);
    const result: GenerationResult = {
      finishReason: "stop",
      outputTokens: 0,
      cachedInputTokens: 0,
    };
    if (forceToolCall) {
      yield* generateForcedToolCall(
        { ...input, grammarFor: (schema) => this.grammarFor(schema), tools, newToolCallId },
        result,
      );
    } else if (hasTools) {
      const chatWrapper = this.chatWrapper;
      yield* generateWithTools({ ...input, chatWrapper, history, tools, newToolCallId }, result);
    } else {
      yield* generateText(lookup === undefined ? input : { ...input, lookup }, result);
    }
    usage.outputTokens = result.outputTokens;
    usage.cachedInputTokens = result.cachedInputTokens;
    let finishReason = result.finishReason;
    if (signal?.aborted) finishReason = "cancelled";
    if (lookup !== undefined) {
      const { statistics } = lookup.drafts;
      usage.acceptedPredictionTokens = statistics.acceptedTokens;
      usage.rejectedPredictionTokens = statistics.draftedTokens - statistics.acceptedTokens;
      this.options.onSpeculation?.({
        lookupTokens: lookup.lookupTokens,
        predictionStart: promptTokens.length,
        history: lookup.history,
        promptTokens: promptTokens.length,
        maxDraftTokens: this.options.maxDraftTokens ?? DEFAULT_MAX_DRAFT_TOKENS,
        statistics,
      });
    }
    yield* finish(finishReason);
  }

  /** Drafting from the prompt and the prediction, when the request has one or speculation is on. */
  private promptLookupFor(
    request: EngineRequest,
    promptTokens: Token[],
  ): { drafts: PromptLookup; history: Token[]; lookupTokens: Token[] } | undefined {
    const hasPrediction = request.prediction !== undefined && request.prediction !== "";
    if (!hasPrediction && this.options.speculative !== true) return undefined;
    const model = this.loaded.model;
    const lookupTokens = hasPrediction
      ? [...promptTokens, ...model.tokenize(request.prediction ?? "")]
      : promptTokens;
    const drafts = new PromptLookup(lookupTokens, promptTokens.length, {
      maxDraftTokens: this.options.maxDraftTokens ?? DEFAULT_MAX_DRAFT_TOKENS,
      tokenCharacters: (token) => this.charactersOf(token),
    });
    return { drafts, history: [...promptTokens], lookupTokens };
  }

  private charactersOf(token: Token): number {
    let characters = this.tokenCharacters.get(token);
    if (characters === undefined) {
      characters = Math.max(1, this.loaded.model.detokenize([token]).length);
      this.tokenCharacters.set(token, characters);
    }
    return characters;
  }

  /** Tool-call grammars by schema: an agent sends the same tools every step, so compile once. */
  private grammarFor(schema: object): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (grammar === undefined) {
      grammar = this.loaded.llama.createGrammarForJsonSchema(schema as never);
      grammar.catch(() => this.grammars.delete(key));
      if (this.grammars.size >= MAX_CACHED_GRAMMARS) this.grammars.clear();
      this.grammars.set(key, grammar);
    }
    return grammar;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.pool.rejectWaiters(
      new SparkError("engine_disposed", "The llama-cpp engine was disposed."),
    );
    await this.context.dispose();
    await this.loaded.model.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

export async function createLlamaCppEngine(
  options: LlamaCppEngineOptions,
): Promise<LlamaCppEngine> {
  return LlamaCppEngine.create(options);
}
