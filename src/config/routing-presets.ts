// `preset = "openai"`: OpenAI's own models behind the router with one line of config (and
// OPENAI_API_KEY): gpt-5.3-codex-spark as `fast`, gpt-5.3-codex as `deep`, `auto` the default,
// both over the Responses API in its WebSocket mode (one socket per session, each turn sending
// only what is new). Anything the user configured by the same name wins.
import type { MergedConfigValues } from "./config-schema.ts";

type MergedModel = MergedConfigValues["models"][string];

const OPENAI_MODELS: Record<string, MergedModel> = {
  "gpt-5.3-codex-spark": {
    engine: "openai-compatible",
    preset: "openai",
    model: "gpt-5.3-codex-spark",
    api: "responses",
    transport: "websocket",
  },
  "gpt-5.3-codex": {
    engine: "openai-compatible",
    preset: "openai",
    model: "gpt-5.3-codex",
    api: "responses",
    transport: "websocket",
  },
};

export function applyRoutingPreset(values: MergedConfigValues): MergedConfigValues {
  if (values.preset !== "openai") return values;
  return {
    ...values,
    default_model: values.default_model ?? "auto",
    models: { ...OPENAI_MODELS, ...values.models },
    routes: { fast: "gpt-5.3-codex-spark", deep: "gpt-5.3-codex", ...values.routes },
  };
}
