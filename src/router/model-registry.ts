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

export interface ModelTableChange {
  added: string[];
  removed: string[];
  changed: string[];
}

export class ModelRegistry {
  private readonly engines = new Map<string, Promise<Engine>>();
  private models: Map<string, ModelConfig>;
  private config: LoadedConfig;

  constructor(private readonly options: ModelRegistryOptions) {
    this.config = options.config;
    this.models = new Map(Object.entries(options.config.models));
  }

  /**
   * Serves the model table of a configuration read again (spark serve's SIGHUP): new requests see
   * only its models. The engines of removed or changed models are no longer handed out and are
   * disposed after `retireAfterMs`, so the responses they are generating can finish.
   */
  replaceModels(config: LoadedConfig, retireAfterMs: number): ModelTableChange {
    const next = new Map(Object.entries(config.models));
    const change: ModelTableChange = { added: [], removed: [], changed: [] };
    for (const name of next.keys()) if (!this.models.has(name)) change.added.push(name);
    for (const [name, model] of this.models) {
      const replacement = next.get(name);
      if (replacement === undefined) change.removed.push(name);
      else if (JSON.stringify(replacement) !== JSON.stringify(model)) change.changed.push(name);
    }
    const retired = [...change.removed, ...change.changed].flatMap((name) => {
      const engine = this.engines.get(name);
      this.engines.delete(name);
      return engine === undefined ? [] : [engine];
    });
    this.models = next;
    this.config = config;
    if (retired.length > 0) {
      setTimeout(() => {
        for (const engine of retired)
          void engine.then(
            (loaded) => loaded.dispose(),
            () => {},
          );
      }, retireAfterMs).unref();
    }
    return change;
  }

  get defaultModelName(): string | undefined {
    const configured = this.config.defaultModel;
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
      engine = this.options.createEngine(resolvedName, model, this.config);
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
