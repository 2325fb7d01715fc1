// The default model client: calls an Engine in this process directly (no serialisation, no
// socket), so the agent pays nothing between the loop and the model.
import type { Engine, EngineEvent, EngineRequest } from "../../engines/engine.ts";
import type { ModelClient, ModelClientStreamOptions } from "./model-client.ts";

export class InProcessModelClient implements ModelClient {
  readonly kind = "in-process";

  constructor(private readonly engine: Engine) {}

  stream(
    request: EngineRequest,
    options: ModelClientStreamOptions = {},
  ): AsyncIterable<EngineEvent> {
    return this.engine.stream(request, options);
  }

  /** The engine belongs to whoever created it (the registry), so closing leaves it running. */
  async close(): Promise<void> {}
}
