// Loads a GGUF file into node-llama-cpp with typed errors for the ways a model file goes wrong.
import { open, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import type { Llama, LlamaModel } from "node-llama-cpp";
import { SparkError } from "../../protocol/spark-error.ts";
import {
  getSharedLlamaBackend,
  type GpuSetting,
  type LlamaBackend,
  type OpenLlamaBackendOptions,
} from "./llama-backend.ts";

export type { GpuSetting };

export interface LoadedModel {
  llama: Llama;
  model: LlamaModel;
  /** True when layers run on a GPU (never for a vocabulary-only model: no layers loaded). */
  onGpu: boolean;
  /** Tokenizer and metadata only, no weights: the native loop holds those. */
  vocabularyOnly: boolean;
}

const GGUF_MAGIC = "GGUF";

/** Checks the file before handing it to native code, so the common mistakes get clear errors. */
export async function checkModelFile(modelPath: string): Promise<void> {
  let size: number;
  try {
    const info = await stat(modelPath);
    if (!info.isFile()) {
      throw new SparkError(
        "model_file_invalid",
        `${modelPath} is not a file; point at a .gguf model file.`,
      );
    }
    size = info.size;
  } catch (error) {
    if (error instanceof SparkError) throw error;
    throw new SparkError(
      "model_file_missing",
      `Model file not found: ${modelPath}. Check the path, or run \`spark pull <hf:user/repo:quant>\` to download one.`,
      { cause: error },
    );
  }
  const handle = await open(modelPath, "r");
  try {
    const header = Buffer.alloc(4);
    const { bytesRead } = await handle.read(header, 0, 4, 0);
    if (bytesRead < 4 || header.toString("latin1") !== GGUF_MAGIC) {
      throw new SparkError(
        "model_file_invalid",
        `${modelPath} is not a GGUF model file (it does not start with "GGUF"; ${size} bytes). Spark's embedded engine loads .gguf files only.`,
      );
    }
  } finally {
    await handle.close();
  }
}

/** One native backend per process (see getSharedLlamaBackend: `auto` refuses software GPUs). */
export async function getSharedLlama(gpu: GpuSetting): Promise<Llama> {
  return (await getSharedLlamaBackend(gpu)).llama;
}

/** The shared backend, with a typed error when it cannot start. */
export async function startLlama(
  gpu: GpuSetting,
  options: OpenLlamaBackendOptions = {},
): Promise<Llama> {
  return (await startLlamaBackend(gpu, options)).llama;
}

/** startLlama with what the native loop binds to and what `auto` refused. */
export async function startLlamaBackend(
  gpu: GpuSetting,
  options: OpenLlamaBackendOptions = {},
): Promise<LlamaBackend> {
  try {
    return await getSharedLlamaBackend(gpu, options);
  } catch (error) {
    throw new SparkError("model_load_failed", `Could not start llama.cpp: ${String(error)}`, {
      cause: error,
    });
  }
}

export async function loadModel(
  modelPath: string,
  options: {
    gpu?: GpuSetting;
    signal?: AbortSignal;
    vocabularyOnly?: boolean;
    /** Where `auto`'s refusal of a software GPU is remembered (see openLlamaBackend). */
    rememberIn?: string;
  } = {},
): Promise<LoadedModel> {
  await checkModelFile(modelPath);
  const llama = await startLlama(
    options.gpu ?? "auto",
    options.rememberIn === undefined ? {} : { rememberIn: options.rememberIn },
  );
  const vocabularyOnly = options.vocabularyOnly === true;
  try {
    const model = await llama.loadModel({
      modelPath,
      ...(vocabularyOnly ? { vocabOnly: true } : {}),
      ...(options.signal === undefined ? {} : { loadSignal: options.signal }),
    });
    return { llama, model, onGpu: llama.gpu !== false && model.gpuLayers > 0, vocabularyOnly };
  } catch (error) {
    if (options.signal?.aborted) throw SparkError.from(options.signal.reason);
    throw new SparkError(
      "model_file_invalid",
      `${modelPath} could not be loaded: the GGUF file is truncated or corrupt, or its architecture is not supported (${String(error)}). Re-download it with \`spark pull\`.`,
      { cause: error },
    );
  }
}

/**
 * Thread count for CPU decoding: one core is left to Node's event loop. node-llama-cpp's prebuilt
 * binaries also start and join worker threads for every multi-threaded decode (no persistent ggml
 * threadpool), which makes extra threads cost more than they give on small machines; see
 * docs/per-token-overhead.md.
 */
export function defaultCpuThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}
