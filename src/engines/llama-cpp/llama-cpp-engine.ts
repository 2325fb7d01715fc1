// The embedded engine: one llama.cpp model and context in this process, several sequences, a
// sessionKey keeping its sequence's KV cache across turns, and prompt-lookup speculative decoding.
import { basename } from "node:path";
import {
  type ChatHistoryItem,
  type ChatWrapper,
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
import type { ChatFormat } from "./chat-format/chat-format.ts";
import type { ChatFormatPrompt } from "./chat-format/chat-format-prompt.ts";
import { chatFormatPrompt, type ChatFormatRequestParts } from "./chat-format-request.ts";
import { refuseUncontinuable } from "./continue-final-message.ts";
import { acquireEngineLease, type EngineLease } from "./acquire-engine-lease.ts";
import { findFimTokens, type FimTokens, type RenderedPrompt } from "./completion-prompt.ts";
import {
  generatePrepared,
  startClockOnLease,
  type GenerationEngineParts,
} from "./generate-prepared.ts";
import type { LoadedModel } from "./load-model.ts";
import type { NativeContext } from "./native-loop/native-context.ts";
import type { DecodeLoop } from "./native-loop/open-native-loop.ts";
import { RequestLookups } from "./prompt-lookup/request-lookup.ts";
import { PromptTokenCache } from "./prompt-token-cache.ts";
import { GrammarCache } from "./grammar-cache.ts";
import { renderRequestPrompt, type PromptRenderer } from "./render-request-prompt.ts";
import { requestPools } from "./request-pools.ts";
import { requestTools } from "./request-tools.ts";
import {
  openEngineParts,
  type EngineParts,
  type NodeLlamaCppContext,
} from "./open-engine-parts.ts";
import { outputTextGrammar } from "./structured-output/output-text-grammar.ts";
import type { ToolCallSyntax } from "./tool-calls/tool-call-syntax.ts";
import type { LlamaCppEngineOptions } from "./llama-cpp-engine-options.ts";
import { chatFormatNotice } from "./chat-format/chat-format-notice.ts";
import { chooseContextSizeFor, type ContextSizeChoice } from "./choose-context-size.ts";
import { prefixCacheOpening } from "./prefix-cache/open-prefix-cache.ts";
import { prefetchPrefixes } from "./prefix-cache/prepare-prefix.ts";

export type { LlamaCppEngineOptions };

export class LlamaCppEngine implements Engine {
  readonly kind = "llama-cpp";
  readonly modelName: string;
  private disposed = false;
  private readonly grammars: GrammarCache;
  private readonly lookups: RequestLookups;
  private readonly fimTokens: FimTokens | undefined;
  /** Chat prompts are tokenized through it: a follow-up tokenizes only its new messages. */
  private readonly promptTokens: PromptTokenCache;
  private readonly renderer: PromptRenderer;

  private readonly native: NativeContext | undefined;
  /** Only where something runs on it: no native loop, or a tool-call syntax it does not speak. */
  private readonly nodeLlamaCpp: NodeLlamaCppContext | undefined;
  /** Why plain text runs on node-llama-cpp's loop, when it does. */
  readonly decodeLoopFallbackReason: string | undefined;
  readonly contextSize: number;
  /** Why contextSize is what it is: configured, or chosen at load (choose-context-size.ts). */
  readonly contextSizeReason: string;
  readonly threads: number;

  private readonly loaded: LoadedModel;
  private readonly chatWrapper: ChatWrapper;
  /** The model's tool-call syntax when the native loop runs tool turns. */
  private readonly toolSyntax: ToolCallSyntax | undefined;
  /** Why tool turns run on node-llama-cpp's loop though the native loop is there, when they do. */
  readonly toolLoopFallbackReason: string | undefined;
  /** The model's chat format, under which the native loop runs chat requests (issue 33). */
  private readonly chatFormat: ChatFormat | undefined;
  /** Why chat requests render through node-llama-cpp's chat wrapper instead, when they do. */
  readonly chatFormatFallbackReason: string | undefined;
  /** Why requests under the chat format are served without their tools, when they are. */
  readonly chatFormatToolsUnsupportedReason: string | undefined;
  /** Model layers on the GPU (0: the CPU runs it). */
  readonly gpuLayers: number;
  private readonly trainContextSize: number;
  private readonly chatFormatParts: ChatFormatRequestParts;
  private readonly generationParts: GenerationEngineParts;

  private constructor(
    parts: EngineParts,
    private readonly options: LlamaCppEngineOptions,
    /** Streams currently generating; read by node-llama-cpp's batch dispatch schedule. */
    private readonly activity: { streams: number },
  ) {
    this.modelName = options.modelName ?? basename(options.modelPath).replace(/\.gguf$/i, "");
    this.loaded = parts.loaded;
    this.chatWrapper = parts.chatWrapper;
    this.toolSyntax = parts.toolSyntax;
    this.toolLoopFallbackReason = parts.toolLoopFallbackReason;
    this.chatFormat = parts.chatFormat;
    this.chatFormatFallbackReason = parts.chatFormatFallbackReason;
    this.chatFormatToolsUnsupportedReason = parts.chatFormatToolsUnsupportedReason;
    this.native = parts.native;
    this.nodeLlamaCpp = parts.nodeLlamaCpp;
    this.decodeLoopFallbackReason = parts.nativeFallbackReason;
    this.contextSize = parts.contextSize;
    this.contextSizeReason = parts.contextSizeReason;
    this.threads = parts.threads;
    this.gpuLayers = parts.gpuLayers;
    this.trainContextSize = parts.trainContextSize;
    const { model } = parts.loaded;
    this.fimTokens = findFimTokens(model);
    this.grammars = new GrammarCache(parts.loaded.llama, options.grammarSearch);
    this.lookups = new RequestLookups(model, options);
    this.promptTokens = new PromptTokenCache(model.tokenizer);
    this.chatFormatParts = {
      modelName: this.modelName,
      model,
      chatFormat: this.chatFormat,
      toolSyntax: this.toolSyntax,
      chatFormatToolsUnsupportedReason: this.chatFormatToolsUnsupportedReason,
    };
    this.generationParts = {
      model,
      options,
      trainContextSize: this.trainContextSize,
      grammars: this.grammars,
      lookups: this.lookups,
      toolSyntax: this.toolSyntax,
      chatWrapper: this.chatWrapper,
      prefixCache: undefined,
    };
    this.renderer = {
      model,
      chatWrapper: this.chatWrapper,
      tokenizer: this.promptTokens.tokenizer,
      fim: {
        tokens: this.fimTokens,
        template: options.fimTemplate,
        order: options.fimOrder ?? "psm",
        split: options.fimSplit ?? "line",
      },
    };
  }

  /** The context `spark serve` would give this model with these settings (spark doctor opens the
   * engine smaller, to stay light). */
  contextChoiceFor(configured: number | undefined, sequences: number): Promise<ContextSizeChoice> {
    return chooseContextSizeFor(
      this.loaded.model,
      { trainContextSize: this.trainContextSize, gpuLayers: this.gpuLayers },
      configured,
      sequences,
    );
  }

  /** The chat format's one line at load, when the model's template cannot run as intended. */
  get loadNotice(): string | undefined {
    return chatFormatNotice(this.modelName, {
      fallbackReason: this.chatFormatFallbackReason,
      toolsUnsupportedReason: this.chatFormatToolsUnsupportedReason,
    });
  }

  /** Whether the model's vocabulary has its own fill-in-the-middle tokens. */
  get hasFimTokens(): boolean {
    return this.fimTokens !== undefined;
  }

  static async create(options: LlamaCppEngineOptions): Promise<LlamaCppEngine> {
    const activity = { streams: 0 };
    // The disk prefix cache (prefix-cache/): its warm start loads while the rest opens.
    const prefixCache = prefixCacheOpening(options);
    const parts = await openEngineParts(options, activity, prefixCache.hooks);
    const engine = new LlamaCppEngine(parts, options, activity);
    const render = (request: EngineRequest): readonly Token[] => engine.renderTokens(request);
    engine.generationParts.prefixCache = await prefixCache.finish(render, parts);
    return engine;
  }

  /** The loop plain text decodes on. */
  get decodeLoop(): DecodeLoop {
    return this.native === undefined ? "node-llama-cpp" : "native";
  }

  /**
   * What node-llama-cpp holds: the model's vocabulary only (the native loop holds the weights and
   * runs everything), or the weights and a context of its own too.
   */
  get nodeLlamaCppHolds(): "vocabulary" | "weights and context" {
    return this.nodeLlamaCpp === undefined ? "vocabulary" : "weights and context";
  }

  /** The loop tool turns decode on. */
  get toolDecodeLoop(): DecodeLoop {
    if (this.native === undefined) return "node-llama-cpp";
    return this.chatFormat !== undefined || this.toolSyntax !== undefined
      ? "native"
      : "node-llama-cpp";
  }

  /**
   * How chat requests are rendered and parsed: the model's own chat format (llama.cpp's
   * common/chat, as llama-server) on the native loop, or node-llama-cpp's chat wrapper
   * (chatFormatFallbackReason says why).
   */
  get chatPath(): "chat-format" | "chat-wrapper" {
    return this.chatFormat === undefined ? "chat-wrapper" : "chat-format";
  }

  /** llama.cpp's name for the model's chat format with tools (peg-native, …), when it is used. */
  get chatFormatName(): string | undefined {
    return this.chatFormat?.formatName;
  }

  get chatWrapperName(): string {
    return this.chatWrapper.wrapperName;
  }

  /** Renders messages with the model's chat template, ready to generate the assistant's turn. */
  tokenizePrompt(history: readonly ChatHistoryItem[]): Token[] {
    const { contextText } = this.chatWrapper.generateContextState({
      chatHistory: [...history, { type: "model", response: [] }],
    });
    return contextText.tokenize(this.promptTokens.tokenizer);
  }

  /**
   * The prompt text a chat request becomes on this engine, as it is tokenized (special tokens as
   * their text): the model's chat format's, or node-llama-cpp's chat wrapper's on the fallback.
   * Throws a SparkError when the request cannot be rendered.
   */
  renderChatPrompt(request: EngineRequest): string {
    const tools = requestTools(request);
    const chat = chatFormatPrompt(this.chatFormatParts, request, tools);
    if (chat !== undefined) return chat.rendered.prompt;
    return this.loaded.model.detokenize(
      renderRequestPrompt(this.renderer, request, tools).tokens,
      true,
    );
  }

  /** The prompt tokens a chat request renders to (the prefix cache finds its system prefix by it). */
  private renderTokens(request: EngineRequest): readonly Token[] {
    const tools = requestTools(request);
    const chat = chatFormatPrompt(this.chatFormatParts, request, tools);
    return (chat?.prompt ?? renderRequestPrompt(this.renderer, request, tools)).tokens;
  }

  countTokens(text: string): number {
    return this.loaded.model.tokenize(text).length;
  }

  async listModels(): Promise<ModelInfo[]> {
    return [
      {
        id: this.modelName,
        engine: this.kind,
        contextLength: this.contextSize,
        contextLengthReason: this.contextSizeReason,
        ...(this.loadNotice === undefined ? {} : { loadNotice: this.loadNotice }),
      },
    ];
  }

  private rejectRequest(request: EngineRequest): SparkError | undefined {
    return (
      rejectStreamRequest("llama-cpp", this.disposed, request, ENGINE_CAPABILITIES) ??
      refuseUncontinuable(request, requestTools(request))
    );
  }

  /** Compiles a structured-output grammar before the gateway answers (and caches it for stream). */
  async checkRequest(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): Promise<SparkError | undefined> {
    const invalid = this.rejectRequest(request);
    if (invalid !== undefined) return invalid;
    const tools = requestTools(request);
    if (request.outputFormat !== undefined) {
      // On the chat-format path the render checks the schema and builds llama.cpp's grammar.
      try {
        if (chatFormatPrompt(this.chatFormatParts, request, tools) !== undefined) return undefined;
      } catch (error) {
        return SparkError.from(error);
      }
    }
    return outputTextGrammar(request, tools, this.grammars, this.toolDecodeLoop, options.signal)
      .then(() => undefined)
      .catch((error: unknown) => SparkError.from(error));
  }

  async *stream(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): AsyncGenerator<EngineEvent> {
    const clock = new StreamClock();
    const usage: Usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    const finish = (reason: FinishReason, error?: SparkError): Generator<EngineEvent, void> =>
      endStream(clock, usage, reason, error);
    const invalid = this.rejectRequest(request);
    if (invalid !== undefined) return yield* finish("error", invalid);

    const tools = requestTools(request);
    // The cached prefixes' headers are read while the prompt renders.
    prefetchPrefixes(this.generationParts.prefixCache, request);
    let prompt: RenderedPrompt;
    let chat: ChatFormatPrompt | undefined;
    const renderStartedAt = performance.now();
    try {
      // Before a sequence is chosen: the pool gives the request the one already holding its prefix.
      chat = chatFormatPrompt(this.chatFormatParts, request, tools);
      prompt = chat?.prompt ?? renderRequestPrompt(this.renderer, request, tools);
    } catch (error) {
      return yield* finish("error", SparkError.from(error));
    }
    clock.addPrefillWork(performance.now() - renderStartedAt);
    let grammar: LlamaGrammar | undefined;
    let lease: EngineLease;
    try {
      // Before a sequence is taken: a build holds none, and a client gone during it takes none
      // (the build is abandoned, and the pool checks the signal again).
      grammar =
        chat === undefined
          ? await outputTextGrammar(
              request,
              tools,
              this.grammars,
              this.toolDecodeLoop,
              options.signal,
            )
          : undefined;
      const pools = requestPools(
        { native: this.native, nodeLlamaCpp: this.nodeLlamaCpp, toolSyntax: this.toolSyntax },
        tools,
        chat,
      );
      lease = await acquireEngineLease(pools, request, prompt, options.signal);
    } catch (error) {
      const sparkError = SparkError.from(error);
      return yield* sparkError.code === "cancelled"
        ? finish("cancelled")
        : finish("error", sparkError);
    }
    startClockOnLease(clock, lease);
    this.activity.streams += 1;
    try {
      const generation = { request, tools, prompt, chat, grammar, lease, clock, usage };
      yield* generatePrepared(this.generationParts, generation, options.signal, finish);
    } catch (error) {
      // A stream cut by dispose() fails wherever it was (the model is gone): say that, not how.
      yield* finish("error", this.disposed ? disposedError(error) : SparkError.from(error));
    } finally {
      this.activity.streams -= 1;
      lease.lease.release();
    }
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    // Before the native context goes: a turn's state being copied or written finishes first.
    await this.generationParts.prefixCache?.cache.flush();
    await this.grammars.dispose();
    const disposed = disposedError();
    this.nodeLlamaCpp?.pool.rejectWaiters(disposed);
    this.native?.pool.rejectWaiters(disposed);
    this.native?.dispose();
    await this.nodeLlamaCpp?.context.dispose();
    await this.loaded.model.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

/**
 * FIM prompts, structured output (a grammar) and continuing a plain-text partial answer. Not
 * penalties (refused when non-zero): node-llama-cpp's repeat penalty counts the prompt's last
 * tokens too, where OpenAI's counts the answer's, and the two loops would disagree.
 */
const ENGINE_CAPABILITIES = { completions: true, outputFormat: true, continuation: true };

function disposedError(cause?: unknown): SparkError {
  return new SparkError("engine_disposed", "The llama-cpp engine was disposed.", { cause });
}

export const createLlamaCppEngine = (options: LlamaCppEngineOptions): Promise<LlamaCppEngine> =>
  LlamaCppEngine.create(options);
