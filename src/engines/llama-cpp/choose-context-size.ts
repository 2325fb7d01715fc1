// How many tokens each sequence of the embedded engine holds, and why: the configured
// context_size (capped at what the model was trained for), else as node-llama-cpp's
// contextSize "auto" decides (the largest up to the trained context whose KV cache for every
// sequence fits the free memory), never below what the agent's prompt needs.
import os from "node:os";
import type {
  GgufInsightsConfigurationResolver,
  LlamaContextOptions,
  LlamaModel,
} from "node-llama-cpp";

/**
 * The fewest tokens a sequence gets without configuration: the agent's system prompt and tools
 * (6,189 tokens with the test models' byte-level tokenizer, ~1,700 with Qwen's) plus room for a
 * conversation holding a 500-line file read (~5,000) and its answer.
 * test/engines/auto-context-size.test.ts measures the prompt against it.
 */
export const AGENT_CONTEXT_FLOOR = 16_384;

/**
 * The most tokens a sequence gets without configuration. A model trained for a million tokens
 * would otherwise take every free byte for a cache no conversation fills.
 */
export const AUTO_CONTEXT_CEILING = 131_072;

/** Share of free RAM the KV cache may take on the host: the machine must stay usable. */
const HOST_MEMORY_SHARE = 0.5;

/** Whether a context taking `bytes` of host memory fits the share of free RAM a choice may take. */
export function fitsHostMemory(bytes: number): boolean {
  return bytes <= os.freemem() * HOST_MEMORY_SHARE;
}

export interface ContextSizeChoice {
  contextSize: number;
  /** One line for `spark doctor` and `--stats`: what was chosen and why. */
  reason: string;
}

export interface ContextSizeInput {
  configured: number | undefined;
  trainContextSize: number;
  sequences: number;
  gpuLayers: number;
  flashAttention: LlamaContextOptions["flashAttention"];
  /** The model's node-llama-cpp resolver: estimates the KV cache and buffers for a context. */
  resolver: Pick<GgufInsightsConfigurationResolver, "resolveContextContextSize">;
}

export async function chooseContextSize(input: ContextSizeInput): Promise<ContextSizeChoice> {
  const { configured, trainContextSize, sequences } = input;
  if (configured !== undefined) {
    if (configured <= trainContextSize)
      return { contextSize: configured, reason: `context_size = ${configured}` };
    return {
      contextSize: trainContextSize,
      reason: `context_size = ${configured}, capped to the ${trainContextSize} the model was trained for`,
    };
  }
  const ceiling = Math.min(trainContextSize, AUTO_CONTEXT_CEILING);
  const floor = Math.min(AGENT_CONTEXT_FLOOR, ceiling);
  const perSequence = sequences > 1 ? ` each for ${sequences} sequences` : "";
  const trained =
    ceiling < trainContextSize
      ? `the model was trained for ${trainContextSize}, capped at ${AUTO_CONTEXT_CEILING}`
      : `the model was trained for ${trainContextSize}`;
  let fitted: number;
  try {
    fitted = await input.resolver.resolveContextContextSize(
      { min: floor, max: ceiling },
      {
        modelGpuLayers: input.gpuLayers,
        modelTrainContextSize: trainContextSize,
        flashAttention: input.flashAttention,
        sequences,
        // On the host the cache shares RAM with everything else: it may take half of what is free.
        ...(input.gpuLayers > 0
          ? {}
          : {
              getRamState: () =>
                Promise.resolve({
                  total: os.totalmem(),
                  free: Math.floor(os.freemem() * HOST_MEMORY_SHARE),
                }),
            }),
      },
    );
  } catch {
    // Not even the floor fits: run with it anyway (what the agent needs), and say so.
    return {
      contextSize: floor,
      reason: `auto: ${floor} tokens${perSequence}, the agent's minimum; more does not fit the free memory (${trained})`,
    };
  }
  const contextSize = Math.max(floor, Math.min(ceiling, fitted));
  const why =
    contextSize >= ceiling
      ? trained
      : `the largest that fits the free ${input.gpuLayers > 0 ? "VRAM" : "memory"} (${trained})`;
  return { contextSize, reason: `auto: ${contextSize} tokens${perSequence}, ${why}` };
}

/** The context a loaded model gets with these settings (what `spark doctor` reports for `spark
 * serve`, where the engine was opened smaller). */
export function chooseContextSizeFor(
  model: LlamaModel,
  loaded: { trainContextSize: number; gpuLayers: number },
  configured: number | undefined,
  sequences: number,
): Promise<ContextSizeChoice> {
  return chooseContextSize({
    configured,
    trainContextSize: loaded.trainContextSize,
    sequences,
    gpuLayers: loaded.gpuLayers,
    flashAttention: model.defaultContextFlashAttention,
    resolver: model.fileInsights.configurationResolver,
  });
}
