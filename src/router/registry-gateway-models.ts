// Lets the gateway serve every configured model through the registry: a request's `model` is a
// configured name (or absent, for the default), and engines load on first use.
import type { GatewayModels } from "../gateway/gateway-models.ts";
import { SparkError } from "../protocol/spark-error.ts";
import type { ModelRegistry } from "./model-registry.ts";

export function gatewayModelsFromRegistry(registry: ModelRegistry): GatewayModels {
  return {
    list: () => registry.listModels(),
    async resolve(model) {
      try {
        const { name, engine } = await registry.engineFor(model);
        return { engine, model: name };
      } catch (error) {
        if (error instanceof SparkError && error.code === "model_not_found") return undefined;
        throw error;
      }
    },
  };
}
