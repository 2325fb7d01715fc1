// The embedded engine's contexts, each with its own KV cache: Spark's native loop when it is built
// (every request runs there when the model's tool calls are <tool_call> JSON), and node-llama-cpp's
// context only when something must run on it (no native loop, or another tool-call syntax), so a
// model's KV cache is not allocated twice (0.4 GB at 4 × 8k tokens for a 0.5B model, 0.9 GB for 1.5B).
import type { LlamaContext, LlamaContextSequence } from "node-llama-cpp";
import { SparkError } from "../../protocol/spark-error.ts";
import type { LlamaCppEngineOptions } from "./llama-cpp-engine-options.ts";
import { defaultCpuThreads, type LoadedModel } from "./load-model.ts";
import type { NativeContext } from "./native-loop/native-context.ts";
import { openNativeLoop, requestedDecodeLoop } from "./native-loop/open-native-loop.ts";
import { SequencePool } from "./sequence-pool.ts";

const DEFAULT_CONTEXT_SIZE = 8192;
const DEFAULT_SEQUENCES = 4;
/** node-llama-cpp's default batch: min(context × sequences, 512). */
const DEFAULT_BATCH_SIZE = 512;

export interface NodeLlamaCppContext {
  context: LlamaContext;
  pool: SequencePool<LlamaContextSequence>;
}

export interface EngineContexts {
  native: NativeContext | undefined;
  /** Why the native loop is not there, when it is not. */
  nativeFallbackReason: string | undefined;
  nodeLlamaCpp: NodeLlamaCppContext | undefined;
  /** Tokens per sequence. */
  contextSize: number;
  threads: number;
}

/** The configured context size, which raising helps only up to the model's trained one. */
export function configuredContextSize(options: LlamaCppEngineOptions): number {
  return options.contextSize ?? DEFAULT_CONTEXT_SIZE;
}

/**
 * Opens the native loop, then node-llama-cpp's context if `needsNodeLlamaCpp(nativeOpened)`.
 * `activity` counts generating streams for node-llama-cpp's batch dispatch schedule. On failure
 * whatever was opened is freed (the model is the caller's).
 */
export async function openEngineContexts(
  loaded: LoadedModel,
  options: LlamaCppEngineOptions,
  activity: { streams: number },
  needsNodeLlamaCpp: (nativeOpened: boolean) => boolean,
): Promise<EngineContexts> {
  const { model } = loaded;
  const contextSize = Math.min(configuredContextSize(options), model.trainContextSize);
  const sequences = options.sequences ?? DEFAULT_SEQUENCES;
  const threads =
    options.threads ?? (loaded.onGpu ? loaded.llama.cpuMathCores : defaultCpuThreads());
  const choice = await openNativeLoop(
    requestedDecodeLoop(options.decodeLoop),
    {
      modelPath: options.modelPath,
      contextSize,
      sequences,
      threads,
      batchSize: options.batchSize ?? Math.min(contextSize * sequences, DEFAULT_BATCH_SIZE),
      gpuLayers: model.gpuLayers,
      flashAttention: model.defaultContextFlashAttention,
    },
    options.nativeLoopAddonPath,
  );
  const contexts: EngineContexts = {
    native: choice.native,
    nativeFallbackReason: choice.reason,
    nodeLlamaCpp: undefined,
    contextSize,
    threads,
  };
  if (!needsNodeLlamaCpp(choice.native !== undefined)) return contexts;

  const dispatchSchedule =
    options.batchDispatch === "next-cycle"
      ? undefined
      : (dispatch: () => void): void => {
          if (activity.streams <= 1) queueMicrotask(dispatch);
          else setImmediate(dispatch);
        };
  let context: LlamaContext;
  try {
    context = await model.createContext({
      contextSize,
      sequences,
      ...(options.threads === undefined && loaded.onGpu ? {} : { threads }),
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      ...(dispatchSchedule === undefined ? {} : { batching: { dispatchSchedule } }),
      ...(options.signal === undefined ? {} : { createSignal: options.signal }),
    });
  } catch (error) {
    choice.native?.dispose();
    throw new SparkError(
      "model_load_failed",
      `Could not create a context for ${options.modelPath}: ${String(error)}`,
      { cause: error },
    );
  }
  // No node-llama-cpp token predictor: prompt lookup runs in generateText (see
  // speculative-decode.ts), and a sequence without one evaluates on the plain path.
  const pool = new SequencePool(context.totalSequences, () => context.getSequence());
  contexts.nodeLlamaCpp = { context, pool };
  contexts.contextSize = choice.native === undefined ? context.contextSize : contextSize;
  return contexts;
}
