// Names to chains: a requested name goes through the client-model map, then `auto` (decided per
// request by the rules), then aliases (expanded recursively into one fallback chain, duplicates
// dropped), and finally must be a configured model.
import type { RouterConfig } from "../config/config-types.ts";
import { SparkError } from "../protocol/spark-error.ts";

export const AUTO_ROUTE = "auto";

export class RouteTable {
  private readonly routes: Map<string, string[]>;

  constructor(
    private readonly config: Pick<RouterConfig, "routes" | "clientModels">,
    private readonly models: ReadonlySet<string>,
  ) {
    this.routes = new Map(Object.entries(config.routes));
    // `fast` and `deep` exist even unconfigured when a model of that name does not: with one
    // model, both mean it, so a client asking for either still gets an answer.
    for (const alias of ["fast", "deep"]) {
      if (!this.routes.has(alias) && !models.has(alias) && models.size === 1)
        this.routes.set(alias, [...models]);
    }
    for (const alias of this.routes.keys()) this.expand(alias);
  }

  /** Applies the client-model map: `gpt-5.1-codex` → `fast`. Other names pass through. */
  mapClientModel(name: string): string {
    return this.config.clientModels[name] ?? name;
  }

  isAlias(name: string): boolean {
    return this.routes.has(name);
  }

  aliases(): string[] {
    return [...this.routes.keys()];
  }

  /** Whether a name can be served: a model, an alias, `auto`, or a mapped client name. */
  knows(name: string): boolean {
    const mapped = this.mapClientModel(name);
    return mapped === AUTO_ROUTE || this.routes.has(mapped) || this.models.has(mapped);
  }

  /** The fallback chain of configured model names for an alias or model; throws model_not_found. */
  expand(name: string, seen: readonly string[] = []): string[] {
    if (seen.includes(name)) {
      throw new SparkError(
        "invalid_config",
        `[routes] ${[...seen, name].join(" → ")} is a cycle; an alias must end in configured models.`,
      );
    }
    const targets = this.routes.get(name);
    if (targets === undefined) {
      if (this.models.has(name)) return [name];
      const where = seen.length === 0 ? "" : ` (named by [routes] ${seen.join(" → ")})`;
      const models = [...this.models].join(", ") || "none";
      const routes = [...this.routes.keys()].join(", ") || "none";
      throw new SparkError(
        "model_not_found",
        `Unknown model "${name}"${where}. Configured models: ${models}; routes: ${routes}. Pass a .gguf path, a configured name or a route.`,
      );
    }
    // A model with the alias's own name is the alias's first link (`fast = ["fast", "deep"]`).
    const chain = targets.flatMap((target) =>
      target === name && this.models.has(name) ? [name] : this.expand(target, [...seen, name]),
    );
    return [...new Set(chain)];
  }
}
