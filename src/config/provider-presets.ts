// Where each OpenAI-compatible preset lives and which variable holds its key, so a config entry
// can say `preset = "groq"` and nothing else. The engine's preset table is the one source.
import { openAICompatiblePresets } from "../engines/openai-compatible/inspect.ts";
import type { ProviderPreset } from "./config-choices.ts";

export interface ProviderPresetDefaults {
  /** Undefined for "custom": base_url is then required. */
  baseUrl: string | undefined;
  apiKeyEnv: string | undefined;
}

export const PROVIDER_PRESET_DEFAULTS: Readonly<Record<ProviderPreset, ProviderPresetDefaults>> =
  openAICompatiblePresets;

/** The provider keys read from the environment even when no model names them yet. */
export const KNOWN_PROVIDER_KEY_VARIABLES: readonly string[] = Object.values(
  openAICompatiblePresets,
)
  .map((preset) => preset.apiKeyEnv)
  .filter((name): name is string => name !== undefined);
