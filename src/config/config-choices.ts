// The values a config key may take, one list per key: what the schema checks a file against and
// what the typed config's unions are made of. Its own module so both can import it.
export const MODEL_ENGINES = ["llama-cpp", "openai-compatible", "script"] as const;
/** Which loop decodes the embedded engine's plain text (see the llama-cpp engine's decodeLoop). */
export const DECODE_LOOPS = ["native", "node-llama-cpp"] as const;
/** Where the native loop samples (see the llama-cpp engine's deviceSampling). */
export const DEVICE_SAMPLING_MODES = ["auto", "on", "off"] as const;
export type ModelEngine = (typeof MODEL_ENGINES)[number];
/** Where a FIM prompt puts the suffix (see the llama-cpp engine's FimOrder). */
export const FIM_ORDERS = ["psm", "spm"] as const;
/** Where a FIM prompt's prefix ends (see the llama-cpp engine's FimSplit). */
export const FIM_SPLITS = ["line", "cursor"] as const;

export const PROVIDER_PRESETS = [
  "cerebras",
  "groq",
  "openai",
  "openrouter",
  "vllm",
  "sglang",
  "llama-server",
  "ollama",
  "custom",
] as const;
export type ProviderPreset = (typeof PROVIDER_PRESETS)[number];

export const GPU_BACKENDS = ["auto", "cuda", "vulkan", "metal"] as const;
/** `false` forces CPU; "auto" lets node-llama-cpp pick the best backend present. */
export type GpuSetting = (typeof GPU_BACKENDS)[number] | false;

/** `[sandbox] mode`: "off" runs commands unconfined. */
export const SANDBOX_MODES = ["auto", "off"] as const;
