// The composition root: what the CLI, the terminal UI and the app server all start from — the
// loaded configuration, the model registry built on it, and the router over the registry.
// src/host sits below all three, so none of them imports another to get it.
import { loadConfig } from "../config/load-config.ts";
import type { ConfigFlags, LoadedConfig } from "../config/config-types.ts";
import { createEngine } from "../router/create-engine.ts";
import { ModelRegistry } from "../router/model-registry.ts";
import { Router } from "../router/router.ts";
import { defaultModelFallback } from "./default-model-fallback.ts";

export interface HostContext {
  config: LoadedConfig;
  registry: ModelRegistry;
  /** Aliases, `auto`, fallback chains and circuit breakers over the registry's models. */
  router: Router;
}

export async function createHostContext(flags: ConfigFlags = {}): Promise<HostContext> {
  const config = await loadConfig({ cwd: process.cwd(), env: process.env, flags });
  const registry = new ModelRegistry({
    config,
    createEngine,
    fallbackModel: () => defaultModelFallback(config, process.stderr),
  });
  return { config, registry, router: new Router({ registry, config: config.router }) };
}
