// How the agent reaches a model: the engine in this process, or a `spark serve` gateway. Either
// way it is the Engine event stream, so the turn loop does not know which it has.
import type { EngineEvent, EngineRequest } from "../../engines/engine.ts";

export interface ModelClientStreamOptions {
  signal?: AbortSignal;
  /** Told which model a router chose and why, before the stream's first event. */
  onRoute?: (route: ModelRoute) => void;
}

export interface ModelRoute {
  model: string;
  reason: string;
}

export interface ModelClient {
  /** "in-process", "gateway-ws" or "gateway-http": shown in session logs and diagnostics. */
  readonly kind: string;
  /** Same contract as Engine.stream: never throws, ends with exactly one finish event. */
  stream(request: EngineRequest, options?: ModelClientStreamOptions): AsyncIterable<EngineEvent>;
  close(): Promise<void>;
}
