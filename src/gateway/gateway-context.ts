// What every transport of one gateway shares: settings, models, stored responses, limits, metrics.
import type { ConcurrencyLimiter } from "./access/concurrency-limiter.ts";
import type { DocumentRequests } from "./http/fim/document-requests.ts";
import type { DrainState } from "./drain-state.ts";
import type { GatewayModels } from "./gateway-models.ts";
import type { GatewayMetrics } from "./metrics.ts";
import type { RequestLog } from "./request-log.ts";
import type { ServeConfig } from "./serve-config.ts";
import type { GatewayStore } from "./store/gateway-store.ts";
import type { LiveLogBatcher } from "./store/live-log-batcher.ts";
import type { LiveResponseRegistry } from "./turn/live-response-registry.ts";

export interface GatewayContext {
  config: ServeConfig;
  models: GatewayModels;
  /** Stored responses, concurrency slots, and (when shared) the logs of responses in flight. */
  store: GatewayStore;
  /** With a shared store: the logs of this replica's responses in flight (WebSocket and HTTP). */
  liveLog: LiveLogBatcher | undefined;
  /** The responses this replica generates (or just finished) that a resume or a retry can reach. */
  liveResponses: LiveResponseRegistry;
  metrics: GatewayMetrics;
  limiter: ConcurrencyLimiter;
  /** The operator log; also where what clients are not told (an upstream's address) goes. */
  log: RequestLog;
  /** Engine runs in progress, so shutdown can wait until every engine stream has ended. */
  runs: Set<Promise<unknown>>;
  /** The fill-in-the-middle completion in flight per document (cancelled by the next one). */
  documents: DocumentRequests;
  /** Set while the gateway drains (SIGTERM): new work is refused, /readyz answers 503. */
  drain: DrainState;
  /** What /readyz checks besides the drain: the default model loaded (set by spark serve). */
  readiness: { modelLoaded: boolean };
}
