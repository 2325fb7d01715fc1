// Lets the gateway serve every configured model and route through the router: a request's `model`
// is a configured name, an alias (`fast`, `deep`, `auto`, [routes], `local` for the default) or a
// client's hard-coded name from [router] client_models; the decision travels back as `route`.
import type { GatewayModels } from "../gateway/gateway-models.ts";
import { SparkError } from "../protocol/spark-error.ts";
import type { ModelRegistry } from "./model-registry.ts";
import type { Router } from "./router.ts";

/**
 * The name every client config in the docs uses: it names the served default model unless a
 * model or route of that name is configured, so `model = "local"` works whatever is served
 * (a .gguf, a script, a provider).
 */
export const DEFAULT_MODEL_ALIAS = "local";

export function gatewayModelsFromRouter(router: Router, registry: ModelRegistry): GatewayModels {
  const aliasIsFree = (): boolean =>
    !registry.entries().some((entry) => entry.name === DEFAULT_MODEL_ALIAS) &&
    !router.routeNames().includes(DEFAULT_MODEL_ALIAS);
  return {
    async list() {
      const models = await registry.listModels();
      const routes = router
        .routeNames()
        .filter((name) => !models.some((model) => model.id === name));
      const alias =
        aliasIsFree() && registry.defaultModelName !== undefined
          ? [{ id: DEFAULT_MODEL_ALIAS, engine: "router" }]
          : [];
      return [...models, ...routes.map((id) => ({ id, engine: "router" })), ...alias];
    },
    async resolve(requestedModel, request) {
      const model =
        requestedModel === DEFAULT_MODEL_ALIAS && aliasIsFree() ? undefined : requestedModel;
      try {
        const decision = router.decide(model, request ?? { messages: [] });
        return {
          engine: router.engineFor(decision),
          model: requestedModel ?? decision.route,
          route: { route: decision.route, models: decision.chain, reason: decision.reason },
        };
      } catch (error) {
        if (error instanceof SparkError && error.code === "model_not_found") return undefined;
        throw error;
      }
    },
    renderMetrics: () => router.metrics.render(),
  };
}
