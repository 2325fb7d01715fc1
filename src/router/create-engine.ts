// The engine factory behind the registry: one branch per adapter, each importing its heavy module
// only when a model of that kind is used (node-llama-cpp costs ~100 ms to import).
import type { Engine } from "../engines/engine.ts";
import type { LoadedConfig, ModelConfig } from "../config/config-types.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { cacheSettings } from "../config/cache-settings.ts";

export async function createEngine(
  name: string,
  model: ModelConfig,
  config: LoadedConfig,
): Promise<Engine> {
  switch (model.engine) {
    case "llama-cpp": {
      const { createLlamaCppEngine } = await import("../engines/llama-cpp/index.ts");
      return createLlamaCppEngine({
        modelPath: model.path,
        modelName: name,
        ...(model.contextSize === undefined ? {} : { contextSize: model.contextSize }),
        sequences: model.sequences,
        gpu: model.gpu,
        speculative: model.speculative,
        ...(model.fimTemplate === undefined ? {} : { fimTemplate: model.fimTemplate }),
        ...(model.fimOrder === undefined ? {} : { fimOrder: model.fimOrder }),
        ...(model.fimSplit === undefined ? {} : { fimSplit: model.fimSplit }),
        ...(model.decodeLoop === undefined ? {} : { decodeLoop: model.decodeLoop }),
        ...(model.deviceSampling === undefined ? {} : { deviceSampling: model.deviceSampling }),
        ...(model.threads === undefined ? {} : { threads: model.threads }),
        ...(model.chatTemplate === undefined ? {} : { chatTemplate: model.chatTemplate }),
        ...prefixCacheSettings(config),
      });
    }
    case "openai-compatible": {
      const { createOpenAICompatibleEngine } =
        await import("../engines/openai-compatible/index.ts");
      const apiKey =
        model.apiKeyEnv === undefined ? undefined : config.providerKeys[model.apiKeyEnv];
      const engineAt = (baseUrl: string): Engine =>
        createOpenAICompatibleEngine({
          preset: model.preset,
          baseUrl,
          model: model.model ?? name,
          ...(model.api === undefined ? {} : { api: model.api }),
          ...(model.transport === undefined ? {} : { transport: model.transport }),
          ...(apiKey === undefined ? {} : { apiKey }),
          ...(model.apiKeyEnv === undefined ? {} : { apiKeyEnv: model.apiKeyEnv }),
          ...(model.maxEventBytes === undefined ? {} : { maxEventBytes: model.maxEventBytes }),
        });
      if (model.baseUrls === undefined) return engineAt(model.baseUrl);
      const { createUpstreamPool } = await import("./create-upstream-pool.ts");
      return createUpstreamPool(model, model.baseUrls, engineAt, apiKey);
    }
    case "script": {
      const { createScriptEngine } = await import("../engines/script/index.ts");
      return createScriptEngine({ path: model.path, model: name });
    }
    default:
      model satisfies never;
      throw new SparkError("invalid_config", `Model "${name}" has an unknown engine.`);
  }
}

/** `[cache]`: the embedded engine's prefix cache on disk, unless turned off. */
function prefixCacheSettings(config: LoadedConfig): {
  prefixCache?: { directory: string; maxBytes: number };
} {
  const { enabled, directory, maxBytes } = cacheSettings(config);
  return enabled ? { prefixCache: { directory, maxBytes } } : {};
}
