// Maps the validated snake_case tree to the camelCase config the code reads, filling in what a
// provider preset implies (base URL, key variable) so consumers never consult presets themselves.
import type { MergedConfigValues } from "./config-schema.ts";
import type { ModelConfig, SparkConfig } from "./config-types.ts";
import { PROVIDER_PRESET_DEFAULTS } from "./provider-presets.ts";

type MergedModel = MergedConfigValues["models"][string];

export function toSparkConfig(values: MergedConfigValues): Omit<SparkConfig, "providerKeys"> {
  const models: Record<string, ModelConfig> = {};
  for (const [name, model] of Object.entries(values.models)) models[name] = toModelConfig(model);
  const serve = values.serve;
  return {
    ...(values.default_model === undefined ? {} : { defaultModel: values.default_model }),
    models,
    serve: {
      host: serve.host,
      port: serve.port,
      apiKeys: serve.api_keys,
      allowedOrigins: serve.allowed_origins,
      maxConcurrencyPerKey: serve.max_concurrency_per_key,
      connectionLifetimeSeconds: serve.connection_lifetime_seconds,
      resumeGraceSeconds: serve.resume_grace_seconds,
      maxFrameBytes: serve.max_frame_bytes,
      contextLimitTokens: serve.context_limit_tokens,
    },
    agent: { workspaceRoots: values.agent.workspace_roots },
  };
}

function toModelConfig(model: MergedModel): ModelConfig {
  switch (model.engine) {
    case "llama-cpp":
      return {
        engine: "llama-cpp",
        path: model.path,
        contextSize: model.context_size,
        ...(model.threads === undefined ? {} : { threads: model.threads }),
        gpu: model.gpu,
        sequences: model.sequences,
        speculative: model.speculative,
      };
    case "openai-compatible": {
      const preset = model.preset ?? "custom";
      const defaults = PROVIDER_PRESET_DEFAULTS[preset];
      // The schema guarantees base_url whenever the preset has no URL of its own.
      const baseUrl = (model.base_url ?? defaults.baseUrl ?? "").replace(/\/+$/, "");
      const apiKeyEnv = model.api_key_env ?? defaults.apiKeyEnv;
      return {
        engine: "openai-compatible",
        preset,
        baseUrl,
        ...(model.model === undefined ? {} : { model: model.model }),
        ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
        ...(model.context_size === undefined ? {} : { contextSize: model.context_size }),
      };
    }
    case "script":
      return { engine: "script", path: model.path };
    default:
      return model satisfies never;
  }
}
