// The known OpenAI-compatible upstreams: where each lives, which key it reads, and which optional
// request fields it accepts (a strict server rejects a field it does not know with a 400).

export type PresetName =
  | "cerebras"
  | "groq"
  | "openai"
  | "openrouter"
  | "vllm"
  | "sglang"
  | "llama-server"
  | "ollama"
  | "custom";

export interface OpenAICompatiblePreset {
  /** Base URL up to and including the version segment; undefined when the user must give one. */
  baseUrl: string | undefined;
  /** Environment variable holding the API key; undefined for servers that need none. */
  apiKeyEnv: string | undefined;
  /** Accepts `prediction: {type: "content", content}` (OpenAI predicted outputs). */
  supportsPrediction: boolean;
  /** Accepts `stream_options: {include_usage: true}`; without it usage rides on the last chunk. */
  supportsStreamUsage: boolean;
  /** The request field that caps output tokens (OpenAI deprecated max_tokens for chat). */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** How long an idle pooled connection is kept: local servers close theirs after about 5 s. */
  keepAliveMs: number;
}

const remote = { keepAliveMs: 30_000, maxTokensField: "max_tokens" } as const;
const local = { keepAliveMs: 4_000, maxTokensField: "max_tokens", apiKeyEnv: undefined } as const;

export const openAICompatiblePresets: Readonly<Record<PresetName, OpenAICompatiblePreset>> = {
  cerebras: {
    ...remote,
    baseUrl: "https://api.cerebras.ai/v1",
    apiKeyEnv: "CEREBRAS_API_KEY",
    supportsPrediction: false,
    // Cerebras puts usage (and time_info) on its final chunk without being asked.
    supportsStreamUsage: false,
  },
  groq: {
    ...remote,
    baseUrl: "https://api.groq.com/openai/v1",
    apiKeyEnv: "GROQ_API_KEY",
    supportsPrediction: false,
    supportsStreamUsage: true,
  },
  openai: {
    ...remote,
    baseUrl: "https://api.openai.com/v1",
    apiKeyEnv: "OPENAI_API_KEY",
    supportsPrediction: true,
    supportsStreamUsage: true,
    maxTokensField: "max_completion_tokens",
  },
  openrouter: {
    ...remote,
    baseUrl: "https://openrouter.ai/api/v1",
    apiKeyEnv: "OPENROUTER_API_KEY",
    supportsPrediction: false,
    supportsStreamUsage: true,
  },
  vllm: {
    ...local,
    baseUrl: "http://127.0.0.1:8000/v1",
    // vLLM rejects `prediction`; speculative decoding is configured on its server instead.
    supportsPrediction: false,
    supportsStreamUsage: true,
  },
  sglang: {
    ...local,
    baseUrl: "http://127.0.0.1:30000/v1",
    supportsPrediction: false,
    supportsStreamUsage: true,
  },
  "llama-server": {
    ...local,
    baseUrl: "http://127.0.0.1:8080/v1",
    supportsPrediction: false,
    supportsStreamUsage: true,
  },
  ollama: {
    ...local,
    baseUrl: "http://127.0.0.1:11434/v1",
    supportsPrediction: false,
    supportsStreamUsage: true,
  },
  custom: {
    ...local,
    baseUrl: undefined,
    supportsPrediction: false,
    supportsStreamUsage: true,
  },
};

export const presetNames = Object.keys(openAICompatiblePresets) as PresetName[];

export function isPresetName(value: string): value is PresetName {
  return Object.hasOwn(openAICompatiblePresets, value);
}
