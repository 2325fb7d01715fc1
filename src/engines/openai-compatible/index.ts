// The OpenAI-compatible engine's public surface: the factory, its options and the presets table.
export {
  createOpenAICompatibleEngine,
  type OpenAICompatibleEngine,
} from "./openai-compatible-engine.ts";
export {
  defaultTimeouts,
  resolveOpenAICompatibleOptions,
  type OpenAICompatibleEngineOptions,
  type OpenAICompatibleTimeouts,
  type ResolvedOpenAICompatibleOptions,
} from "./openai-compatible-options.ts";
export {
  isPresetName,
  openAICompatiblePresets,
  presetNames,
  type OpenAICompatiblePreset,
  type PresetName,
} from "./presets.ts";
