// The OpenAI-compatible engine's public surface: the factory, its options and the presets table.
export {
  createOpenAICompatibleEngine,
  type OpenAICompatibleEngine,
} from "./openai-compatible-engine.ts";
export {
  resolveOpenAICompatibleOptions,
  type OpenAICompatibleEngineOptions,
  type ResolvedOpenAICompatibleOptions,
} from "./openai-compatible-options.ts";
export { defaultTimeouts, type OpenAICompatibleTimeouts } from "./upstream-timeouts.ts";
export {
  isPresetName,
  openAICompatiblePresets,
  presetNames,
  type OpenAICompatiblePreset,
  type PresetName,
} from "./presets.ts";
