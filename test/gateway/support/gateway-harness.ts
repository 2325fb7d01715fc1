// Starts a real gateway on 127.0.0.1 port 0 over a given engine, for the gateway tests. The engine
// is a parameter so the same tests run on the synthetic engine and the embedded one.
import type { Engine } from "../../../src/engines/engine.ts";
import {
  createGateway,
  modelsFromEngine,
  type Gateway,
  type ServeConfig,
} from "../../../src/gateway/index.ts";

export interface GatewayHarness {
  url: string;
  /** The model id the engine lists first: what tests put in `model`. */
  model: string;
  gateway: Gateway;
  engine: Engine;
  close(): Promise<void>;
}

export async function startGatewayHarness(
  engine: Engine,
  config: Partial<ServeConfig> = {},
): Promise<GatewayHarness> {
  const models = await engine.listModels();
  const model = models[0]?.id;
  if (model === undefined) throw new Error(`The ${engine.kind} engine lists no models.`);
  const gateway = createGateway({
    models: modelsFromEngine(engine),
    config: { host: "127.0.0.1", port: 0, ...config },
  });
  const { url } = await gateway.listen();
  return { url, model, gateway, engine, close: () => gateway.close() };
}
