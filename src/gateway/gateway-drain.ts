// A graceful drain (SIGTERM): the gateway turns unready, refuses new work with a retryable 503,
// lets responses in flight finish within the grace period (and serves requests that reach open
// WebSockets meanwhile), and hands over those still running at its end exactly as a killed replica
// leaves them (their event log and lease, for another replica to resume and continue), so a
// rolling restart loses no stream.
import type { GatewayContext } from "./gateway-context.ts";
import type { LiveResponseRegistry } from "./turn/live-response-registry.ts";

/** How often the drain looks for idle connections to close and for runs still going. */
const DRAIN_POLL_MS = 50;
/** After the runs have ended, how long their HTTP answers get to be written out. */
const HTTP_FINISH_MS = 2000;

/** A connection the drain closes once it has nothing in flight. */
export interface DrainableSession {
  /** Closed (or closing): it takes nothing more. */
  readonly closed: boolean;
  /** Closes it once idle with nothing of the client's on its way (see ws/ws-close-fence.ts). */
  closeWhenIdle(): void;
  shutdown(): void;
}

export interface DrainOutcome {
  /** Responses that finished within the grace period. */
  finished: number;
  /** WebSocket responses left for another replica to continue. */
  handedOver: number;
  /** HTTP responses ended with a retryable failure (HTTP has no resume). */
  stopped: number;
}

export async function drainGateway(
  parts: {
    context: GatewayContext;
    registry: LiveResponseRegistry;
    sessions: ReadonlySet<DrainableSession>;
  },
  graceMs: number,
): Promise<DrainOutcome> {
  const { context, registry, sessions } = parts;
  context.drain.start();
  // An open WebSocket counts until it is closed: a request its client sent before our close is
  // served (no load balancer can send a WebSocket frame to another replica), and one that is
  // being prepared is not a run yet.
  const busy = (): boolean =>
    context.runs.size > 0 ||
    context.drain.httpInFlight > 0 ||
    [...sessions].some((session) => !session.closed);
  const inFlight = context.runs.size;
  const deadline = performance.now() + graceMs;
  const closeIdle = (): void => {
    // A response's last events may still wait for this turn's log write: out before the close.
    context.liveLog?.flushNow();
    for (const session of sessions) session.closeWhenIdle();
  };
  closeIdle();
  while (busy() && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    closeIdle();
  }
  // From here a request on a WebSocket still open would be cut: it is refused, retryably.
  context.drain.endGrace();
  const left = context.runs.size;
  let handedOver = 0;
  if (left > 0) {
    // A shared store lets another replica continue them; without one, they end here as before.
    handedOver = context.liveLog === undefined ? 0 : registry.handOverAll();
    if (handedOver === 0) registry.stopAll();
    context.drain.stopHttpRuns();
  }
  await Promise.allSettled([...context.runs]);
  // HTTP answers end after their run (the final event waits for the store): not cut by close().
  const answered = performance.now() + HTTP_FINISH_MS;
  while (context.drain.httpInFlight > 0 && performance.now() < answered)
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
  // The logs' last events reach the store before the lease is given up.
  await context.liveLog?.settled();
  for (const session of sessions) session.shutdown();
  const outcome = {
    finished: Math.max(0, inFlight + context.drain.startedWhileDraining - left),
    handedOver,
    stopped: Math.max(0, left - handedOver),
  };
  context.metrics.countDrain("finished", outcome.finished);
  context.metrics.countDrain("handed_over", outcome.handedOver);
  context.metrics.countDrain("stopped", outcome.stopped);
  return outcome;
}
