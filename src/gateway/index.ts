// The serving tier's public surface: create a gateway over some models, with [serve] settings.
export { createGateway, type Gateway, type GatewayOptions } from "./gateway-server.ts";
export { modelsFromEngine, type GatewayModels, type ResolvedModel } from "./gateway-models.ts";
export { defaultServeConfig, resolveServeConfig, type ServeConfig } from "./serve-config.ts";
