// Lets the gateway serve every configured model and route through the router: a request's `model`
// is a configured name, an alias (`fast`, `deep`, `auto`, [routes]) or a client's hard-coded name
// from [router] client_models; the decision travels back as `route` for `spark_route`.
import type { GatewayModels } from "../gateway/gateway-models.ts";
import { SparkError } from "../protocol/spark-error.ts";
import type { ModelRegistry } from "./model-registry.ts";
import type { Router } from "./router.ts";

export function gatewayModelsFromRouter(router: Router, registry: ModelRegistry): GatewayModels {
  return {
    async list() {
      const models = await registry.listModels();
      const routes = router
        .routeNames()
        .filter((name) => !models.some((model) => model.id === name));
      return [...models, ...routes.map((id) => ({ id, engine: "router" }))];
    },
    async resolve(model, request) {
      try {
        const decision = router.decide(model, request ?? { messages: [] });
        return {
          engine: router.engineFor(decision),
          model: model ?? decision.route,
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
