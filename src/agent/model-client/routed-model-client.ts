// The in-process client behind the router: each model call is routed on its own request (so
// `auto` can send a security-sensitive step to deep), and the decision is told to the turn loop.
import { endStream, noUsage } from "../../engines/end-stream.ts";
import type { EngineEvent, EngineRequest } from "../../engines/engine.ts";
import { StreamClock } from "../../engines/stream-clock.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { Router } from "../../router/router.ts";
import type { ModelClient, ModelClientStreamOptions } from "./model-client.ts";

export class RoutedModelClient implements ModelClient {
  readonly kind = "in-process";

  /** `model`: what the user chose (`--model`, `/model`): a model, an alias or `auto`. */
  constructor(
    private readonly router: Router,
    private readonly model: string | undefined,
  ) {}

  async *stream(
    request: EngineRequest,
    options: ModelClientStreamOptions = {},
  ): AsyncGenerator<EngineEvent> {
    let decision;
    try {
      decision = this.router.decide(request.model ?? this.model, request);
    } catch (error) {
      yield* endStream(new StreamClock(), noUsage(), "error", SparkError.from(error));
      return;
    }
    const [model = decision.route] = decision.chain;
    options.onRoute?.({ model, reason: decision.reason });
    const { onRoute: _told, ...engineOptions } = options;
    yield* this.router.engineFor(decision).stream(request, engineOptions);
  }

  /** The engines belong to the registry, so closing leaves them running. */
  async close(): Promise<void> {}
}
