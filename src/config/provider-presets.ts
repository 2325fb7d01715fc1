// Where each OpenAI-compatible preset lives and which variable holds its key, so a config entry
// can say `preset = "groq"` and nothing else.
import type { ProviderPreset } from "./config-types.ts";

export interface ProviderPresetDefaults {
  /** Undefined for "custom": base_url is then required. */
  baseUrl: string | undefined;
  apiKeyEnv: string | undefined;
}

export const PROVIDER_PRESET_DEFAULTS: Record<ProviderPreset, ProviderPresetDefaults> = {
  cerebras: { baseUrl: "https://api.cerebras.ai/v1", apiKeyEnv: "CEREBRAS_API_KEY" },
  groq: { baseUrl: "https://api.groq.com/openai/v1", apiKeyEnv: "GROQ_API_KEY" },
  openai: { baseUrl: "https://api.openai.com/v1", apiKeyEnv: "OPENAI_API_KEY" },
  openrouter: { baseUrl: "https://openrouter.ai/api/v1", apiKeyEnv: "OPENROUTER_API_KEY" },
  vllm: { baseUrl: "http://127.0.0.1:8000/v1", apiKeyEnv: undefined },
  sglang: { baseUrl: "http://127.0.0.1:30000/v1", apiKeyEnv: undefined },
  "llama-server": { baseUrl: "http://127.0.0.1:8080/v1", apiKeyEnv: undefined },
  ollama: { baseUrl: "http://127.0.0.1:11434/v1", apiKeyEnv: undefined },
  custom: { baseUrl: undefined, apiKeyEnv: undefined },
};

/** The provider keys read from the environment even when no model names them yet. */
export const KNOWN_PROVIDER_KEY_VARIABLES = [
  "CEREBRAS_API_KEY",
  "GROQ_API_KEY",
  "OPENAI_API_KEY",
  "OPENROUTER_API_KEY",
] as const;
