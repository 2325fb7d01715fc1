// What the embedded engine runs on, opened so that nothing is held twice. Spark's native loop, when
// its addon is built, holds the weights and the KV cache; node-llama-cpp then loads the model's
// vocabulary only (tokenizer, chat template, grammars). node-llama-cpp's full model and context
// are opened only when something must run on them: no native loop, or a tool-call syntax the
// native loop does not speak. Holding both cost, on the 0.5B shape at 4 × 8k tokens on the CPU,
// ~400 MiB of KV cache and ~480 MiB of repacked q8_0 weights; on a GPU the same in VRAM.
import type { ChatWrapper, LlamaContext } from "node-llama-cpp";
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import { SparkError } from "../../protocol/spark-error.ts";
import type { LlamaCppEngineOptions } from "./llama-cpp-engine-options.ts";
import { defaultCpuThreads, loadModel, startLlamaBackend, type LoadedModel } from "./load-model.ts";
import { NativeContext } from "./native-loop/native-context.ts";
import {
  deviceSamplingEnabled,
  requestedDeviceSampling,
} from "./native-loop/device-sampling-mode.ts";
import { findNativeLoop, requestedDecodeLoop } from "./native-loop/open-native-loop.ts";
import type { ChatFormat } from "./chat-format/chat-format.ts";
import { openModelChatFormat, type ModelChatFormat } from "./chat-format/open-model-chat-format.ts";
import { chooseContextSize } from "./choose-context-size.ts";
import { openPlanning, settle } from "./open-planning.ts";
import { planMatchesModel } from "./remembered-open-plan.ts";
import type { AddonContextOptions } from "./native-loop/generation-loop-addon.ts";
import { chatWrapperFor } from "./remembered-chat-wrapper.ts";
import type { ModelMemory } from "./cache-folder-record.ts";
import { SequencePool } from "./sequence-pool.ts";
import { documentToolsAfterFirstSystemMessage } from "./tools-after-first-system-message.ts";
import { findToolCallSyntax, type ToolCallSyntax } from "./tool-calls/tool-call-syntax.ts";

const DEFAULT_SEQUENCES = 4;
/** Ends the context size's reason when an earlier open's choice was used (remembered-open-plan.ts). */
export const REMEMBERED = "(remembered from an earlier open)";
/** node-llama-cpp's default batch: min(context × sequences, 512). */
const DEFAULT_BATCH_SIZE = 512;

export interface NodeLlamaCppContext {
  context: LlamaContext;
  pool: SequencePool<LlamaContextSequence>;
}

export interface EngineParts {
  /** node-llama-cpp's model: its vocabulary only when the native loop holds the weights. */
  loaded: LoadedModel;
  chatWrapper: ChatWrapper;
  /** The model's tool-call syntax, when the native loop runs its tool turns. */
  toolSyntax: ToolCallSyntax | undefined;
  /** Why tool turns run on node-llama-cpp's loop, when they do. */
  toolLoopFallbackReason: string | undefined;
  /**
   * The model's own chat format (llama.cpp's common/chat), under which the native loop runs every
   * chat request: its template's prompt, its call grammar and parser.
   */
  chatFormat: ChatFormat | undefined;
  /** Why chat requests do not run under it (node-llama-cpp's chat wrapper renders them instead). */
  chatFormatFallbackReason: string | undefined;
  /** Why requests under the chat format are served without their tools, when they are. */
  chatFormatToolsUnsupportedReason: string | undefined;
  native: NativeContext | undefined;
  /** Why the native loop is not there, when it is not. */
  nativeFallbackReason: string | undefined;
  nodeLlamaCpp: NodeLlamaCppContext | undefined;
  /** Tokens per sequence. */
  contextSize: number;
  /** Why contextSize is what it is (configured, or chosen from the model and free memory). */
  contextSizeReason: string;
  /** The context the model was trained for (caps contextSize). */
  trainContextSize: number;
  threads: number;
  /** Model layers on the GPU, in whichever loop holds the weights. */
  gpuLayers: number;
}

/** What exists once the native loop's context is created, while the rest of the open goes on. */
export interface NativeOpened {
  loaded: LoadedModel;
  native: NativeContext;
  gpuLayers: number;
}

/** Work on the native context that runs while the open goes on. */
export interface NativeContextWork {
  /** The open goes on once this settles: what must be on the decode thread's queue is there. */
  queued: Promise<unknown>;
  /** Awaited before a failed open frees the context: nothing is copied into one being freed. */
  ended: Promise<unknown>;
}

export interface OpenEngineHooks {
  /**
   * The model file's identity (modelFileIdentity), read once as the open starts: the prefix cache
   * keys its entries by it, and the chat wrapper's choice is remembered under it.
   */
  modelIdentity?: Promise<string | undefined>;
  /**
   * Called once the native context exists, before the chat format opens and the chat wrapper
   * resolves (tens of ms on the tiny test model, 0.1–0.7 s on the 0.5B shape): work queued on the
   * decode thread by then (the prefix cache's warm start) runs during them, not after the open.
   */
  nativeOpened?: (opened: NativeOpened) => NativeContextWork;
}

/** The configured context size (0 when none is: chosen at load, see choose-context-size.ts),
 * which raising helps only up to the model's trained one. */
export function configuredContextSize(options: LlamaCppEngineOptions): number {
  return options.contextSize ?? 0;
}

/**
 * Loads the model and opens the contexts. `activity` counts generating streams for
 * node-llama-cpp's batch dispatch schedule. On failure whatever was opened is freed.
 */
export async function openEngineParts(
  options: LlamaCppEngineOptions,
  activity: { streams: number },
  hooks: OpenEngineHooks = {},
): Promise<EngineParts> {
  const gpu = options.gpu ?? "auto";
  // `auto`'s refusal of a software GPU is remembered beside the prefix cache (none when it is off).
  const remember =
    options.prefixCache === undefined ? {} : { rememberIn: options.prefixCache.directory };
  const load = (vocabularyOnly: boolean): Promise<LoadedModel> =>
    loadModel(options.modelPath, {
      gpu,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      vocabularyOnly,
      ...remember,
    });
  // Whether the native loop can hold the weights is known before they load, so they load once.
  // node-llama-cpp's backend first: the addon binds to the libllama it loaded (findNativeLoop).
  const requested = requestedDecodeLoop(options.decodeLoop);
  const deviceSampling = requestedDeviceSampling(options.deviceSampling);
  const backend = requested === "native" ? await startLlamaBackend(gpu, remember) : undefined;
  const found = findNativeLoop(requested, backend, options.nativeLoopAddonPath);
  const addon = found.addon;
  let nativeFallbackReason = found.addon === undefined ? found.reason : undefined;
  const sequences = options.sequences ?? DEFAULT_SEQUENCES;
  // What opens learn of this model (the chat wrapper's choice, the open's plan) is remembered
  // beside the prefix cache, as the GPU refusal is.
  const memory: ModelMemory | undefined =
    options.prefixCache === undefined || hooks.modelIdentity === undefined
      ? undefined
      : { cacheDirectory: options.prefixCache.directory, modelIdentity: hooks.modelIdentity };
  // The backend the native loop binds to is the one node-llama-cpp's loads share.
  const nativeSettings = (
    settings: Pick<AddonContextOptions, "contextSize" | "gpuLayers" | "flashAttention" | "threads">,
  ): AddonContextOptions => ({
    ...settings,
    modelPath: options.modelPath,
    sequences,
    batchSize: options.batchSize ?? Math.min(settings.contextSize * sequences, DEFAULT_BATCH_SIZE),
    deviceSampling: deviceSamplingEnabled(deviceSampling, backend?.llama.gpu ?? false),
  });
  const loading = settle(load(addon !== undefined));
  // On the host CPU, what a previous open chose lets the weights load beside the vocabulary.
  const planning = openPlanning(
    memory,
    { sequences, configuredContextSize: options.contextSize },
    backend,
  );
  const plan = addon === undefined ? undefined : await planning?.remembered();
  const early =
    addon === undefined || plan === undefined
      ? undefined
      : settle(
          NativeContext.create(
            addon,
            nativeSettings({
              contextSize: plan.contextSize,
              gpuLayers: 0,
              flashAttention: plan.flashAttention,
              threads: options.threads ?? defaultCpuThreads(),
            }),
          ),
        );
  const vocabulary = await loading;
  if (vocabulary.value === undefined) {
    (await early)?.value?.dispose();
    throw vocabulary.error;
  }
  let loaded = vocabulary.value;
  let native: NativeContext | undefined;
  let nativeWork: NativeContextWork | undefined;
  try {
    const gpuLayers = await layersOnGpu(loaded);
    // A vocabulary-only model reports 0 as its trainContextSize; the file's metadata has it.
    const trainContextSize =
      loaded.model.fileInsights.trainContextSize ?? loaded.model.trainContextSize;
    const earlyNative = (await early)?.value;
    const planHeld = plan !== undefined && gpuLayers === 0 && planMatchesModel(plan, loaded.model);
    if (earlyNative !== undefined && planHeld) native = earlyNative;
    else earlyNative?.dispose();
    const chosenContext =
      native !== undefined && plan !== undefined
        ? { contextSize: plan.contextSize, reason: `${plan.contextSizeReason} ${REMEMBERED}` }
        : await chooseContextSize({
            configured: options.contextSize,
            trainContextSize,
            sequences,
            gpuLayers,
            flashAttention: loaded.model.defaultContextFlashAttention,
            resolver: loaded.model.fileInsights.configurationResolver,
          });
    const contextSize = chosenContext.contextSize;
    const threads =
      options.threads ?? (gpuLayers > 0 ? loaded.llama.cpuMathCores : defaultCpuThreads());
    if (addon !== undefined && native === undefined) {
      const flashAttention = loaded.model.defaultContextFlashAttention;
      try {
        native = await NativeContext.create(
          addon,
          nativeSettings({ contextSize, gpuLayers, flashAttention, threads }),
        );
      } catch (error) {
        nativeFallbackReason = SparkError.from(error).message;
      }
      if (native !== undefined && gpuLayers === 0) {
        const { reason: contextSizeReason } = chosenContext;
        const chosen = { contextSize, contextSizeReason, trainContextSize, flashAttention };
        planning?.remember(chosen, loaded.model);
      }
    }
    if (native !== undefined) {
      nativeWork = hooks.nativeOpened?.({ loaded, native, gpuLayers });
      await nativeWork?.queued;
    }
    // The chat format needs no weights (the GGUF's template and token texts); with the native loop
    // it runs every chat request, so node-llama-cpp never needs a second copy of the weights. Opened
    // after the native context: the prefix cache's warm start copies on the decode thread meanwhile.
    const chat: ModelChatFormat =
      options.chatPath === "chat-wrapper"
        ? { reason: "node-llama-cpp's chat wrapper was requested" }
        : await openModelChatFormat(options.modelPath, {
            ...(options.chatTemplate === undefined ? {} : { templateFile: options.chatTemplate }),
            ...(options.chatFormatAddonPath === undefined
              ? {}
              : { addonPath: options.chatFormatAddonPath }),
          });
    let tools = await toolSupport(loaded, memory);
    let nodeLlamaCpp: NodeLlamaCppContext | undefined;
    const chatFormat = native === undefined ? undefined : chat.format;
    if (native === undefined || (tools.syntax === undefined && chatFormat === undefined)) {
      if (loaded.vocabularyOnly) {
        // node-llama-cpp runs something after all: it needs the weights too.
        const full = await load(false);
        await loaded.model.dispose();
        loaded = full;
        tools = await toolSupport(loaded, memory);
      }
      const settings = { contextSize, sequences, threads, gpuLayers };
      nodeLlamaCpp = await openNodeLlamaCppContext(loaded, settings, options, activity);
    }
    return {
      loaded,
      chatWrapper: tools.chatWrapper,
      toolSyntax: tools.syntax,
      toolLoopFallbackReason: tools.reason,
      chatFormat,
      chatFormatFallbackReason:
        chat.format === undefined
          ? chat.reason
          : native === undefined
            ? "the native loop is not there"
            : undefined,
      chatFormatToolsUnsupportedReason:
        chat.format === undefined ? undefined : chat.toolsUnsupportedReason,
      native,
      nativeFallbackReason,
      nodeLlamaCpp,
      contextSize:
        native === undefined && nodeLlamaCpp !== undefined
          ? nodeLlamaCpp.context.contextSize
          : contextSize,
      contextSizeReason: chosenContext.reason,
      trainContextSize,
      threads,
      gpuLayers,
    };
  } catch (error) {
    await nativeWork?.ended.catch(() => {});
    native?.dispose();
    await loaded.model.dispose();
    throw error;
  }
}

/**
 * Layers the weights put on the GPU: node-llama-cpp's own choice for "auto" (what fits the VRAM
 * beside a default context), resolved without loading them when the native loop will.
 */
async function layersOnGpu(loaded: LoadedModel): Promise<number> {
  if (!loaded.vocabularyOnly) return loaded.model.gpuLayers;
  if (loaded.llama.gpu === false || !loaded.llama.supportsGpuOffloading) return 0;
  const resolved = await loaded.model.fileInsights.configurationResolver.resolveModelGpuLayersV2(
    "auto",
    { defaultContextFlashAttention: loaded.model.defaultContextFlashAttention },
  );
  return resolved.gpuLayers;
}

async function toolSupport(
  loaded: LoadedModel,
  memory: ModelMemory | undefined,
): Promise<{
  chatWrapper: ChatWrapper;
  syntax: ToolCallSyntax | undefined;
  reason: string | undefined;
}> {
  const { chatWrapper: resolved } = await chatWrapperFor(loaded.model, memory);
  const chatWrapper = documentToolsAfterFirstSystemMessage(resolved);
  const syntax = findToolCallSyntax(chatWrapper, loaded.model);
  return "reason" in syntax
    ? { chatWrapper, syntax: undefined, reason: syntax.reason }
    : { chatWrapper, syntax, reason: undefined };
}

async function openNodeLlamaCppContext(
  loaded: LoadedModel,
  settings: { contextSize: number; sequences: number; threads: number; gpuLayers: number },
  options: LlamaCppEngineOptions,
  activity: { streams: number },
): Promise<NodeLlamaCppContext> {
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
      contextSize: settings.contextSize,
      sequences: settings.sequences,
      // On a GPU without a configured count, node-llama-cpp picks its own.
      ...(options.threads === undefined && settings.gpuLayers > 0
        ? {}
        : { threads: settings.threads }),
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      ...(dispatchSchedule === undefined ? {} : { batching: { dispatchSchedule } }),
      ...(options.signal === undefined ? {} : { createSignal: options.signal }),
    });
  } catch (error) {
    throw new SparkError(
      "model_load_failed",
      `Could not create a context for ${options.modelPath}: ${String(error)}`,
      { cause: error },
    );
  }
  // No node-llama-cpp token predictor: prompt lookup runs in generateText (see
  // speculative-decode.ts), and a sequence without one evaluates on the plain path.
  const pool = new SequencePool(context.totalSequences, () => context.getSequence(), {
    cachedLength: (sequence) => sequence.nextTokenIndex,
    // Compared in place: contextTokens would copy the whole cache for every idle sequence.
    sharedPrefixLength: (sequence, tokens) =>
      sequence.compareContextTokens(tokens as Token[]).firstDifferentIndex,
  });
  return { context, pool };
}
