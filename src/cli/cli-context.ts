// What every command starts from: the loaded configuration, the model registry built on it, and
// the router over the registry.
import { loadConfig } from "../config/load-config.ts";
import type { ConfigFlags, LoadedConfig } from "../config/config-types.ts";
import { createEngine } from "../router/create-engine.ts";
import { ModelRegistry } from "../router/model-registry.ts";
import { Router } from "../router/router.ts";
import { defaultModelFallback } from "./default-model-fallback.ts";

export interface CliContext {
  config: LoadedConfig;
  registry: ModelRegistry;
  /** Aliases, `auto`, fallback chains and circuit breakers over the registry's models. */
  router: Router;
}

export async function createCliContext(flags: ConfigFlags = {}): Promise<CliContext> {
  const config = await loadConfig({ cwd: process.cwd(), env: process.env, flags });
  const registry = new ModelRegistry({
    config,
    createEngine,
    fallbackModel: () => defaultModelFallback(config, process.stderr),
  });
  return { config, registry, router: new Router({ registry, config: config.router }) };
}
