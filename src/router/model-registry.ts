// Turns configured model names into live engines, created on first use and shared after; the one
// place that knows which adapter serves which model.
import type { Engine, ModelInfo } from "../engines/engine.ts";
import type { LoadedConfig, ModelConfig } from "../config/config-types.ts";
import { SparkError } from "../protocol/spark-error.ts";

export type EngineFactory = (
  name: string,
  model: ModelConfig,
  config: LoadedConfig,
) => Promise<Engine>;

export interface ModelRegistryOptions {
  config: LoadedConfig;
  createEngine: EngineFactory;
  /** Called when no model is configured at all: returns a model config to use (e.g. pulls the default GGUF). */
  fallbackModel?: () => Promise<ModelConfig>;
}

export interface ModelEntry {
  name: string;
  model: ModelConfig;
  isDefault: boolean;
}

export class ModelRegistry {
  private readonly engines = new Map<string, Promise<Engine>>();
  private readonly models: Map<string, ModelConfig>;

  constructor(private readonly options: ModelRegistryOptions) {
    this.models = new Map(Object.entries(options.config.models));
  }

  get defaultModelName(): string | undefined {
    const configured = this.options.config.defaultModel;
    if (configured !== undefined) return configured;
    const [only] = this.models.keys();
    return only;
  }

  entries(): ModelEntry[] {
    const defaultName = this.defaultModelName;
    return [...this.models].map(([name, model]) => ({
      name,
      model,
      isDefault: name === defaultName,
    }));
  }

  /** The engine for a model name (or the default); unknown names are `model_not_found`. */
  async engineFor(name?: string): Promise<{ name: string; engine: Engine }> {
    let resolvedName = name ?? this.defaultModelName;
    if (resolvedName === undefined) {
      if (this.options.fallbackModel === undefined) throw noModelError();
      resolvedName = "default";
      if (!this.models.has(resolvedName))
        this.models.set(resolvedName, await this.options.fallbackModel());
    }
    const model = this.models.get(resolvedName);
    if (model === undefined) {
      const known = [...this.models.keys()];
      throw new SparkError(
        "model_not_found",
        `Unknown model "${resolvedName}". ${known.length > 0 ? `Configured models: ${known.join(", ")}.` : "No models are configured."} Pass a .gguf path or a configured name.`,
      );
    }
    let engine = this.engines.get(resolvedName);
    if (engine === undefined) {
      engine = this.options.createEngine(resolvedName, model, this.options.config);
      this.engines.set(resolvedName, engine);
      // A failed load is not cached: the next request retries (e.g. after the file is fixed).
      engine.catch(() => this.engines.delete(resolvedName));
    }
    return { name: resolvedName, engine: await engine };
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.entries().map(({ name, model }) => ({ id: name, engine: model.engine }));
  }

  async dispose(): Promise<void> {
    const engines = [...this.engines.values()];
    this.engines.clear();
    await Promise.all(
      engines.map(async (engine) => (await engine.catch(() => undefined))?.dispose()),
    );
  }
}

function noModelError(): SparkError {
  return new SparkError(
    "model_not_found",
    "No model is configured. Pass --model /path/to/model.gguf, set SPARK_MODEL_PATH, or add a [models.<name>] entry to ~/.spark/config.toml.",
  );
}
