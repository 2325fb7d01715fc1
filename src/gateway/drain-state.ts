// Whether this gateway is draining, as every transport reads it: new HTTP work and WebSocket
// upgrades are refused with a retryable 503 while it drains, requests on open WebSockets until the
// grace period ends, and HTTP runs still going at its end are stopped.
import { WireError } from "./wire/wire-error.ts";

/** A refused request retries after this long, by when a load balancer has moved on. */
const DRAIN_RETRY_AFTER_MS = 1000;

/** What every transport reads to know the gateway is draining. */
export class DrainState {
  draining = false;
  /** The grace period is over: open WebSockets are refused new requests too (they would be cut). */
  graceOver = false;
  /** Runs an open WebSocket started during the drain (they count as finished when they end). */
  private runsStartedDraining = 0;
  private readonly httpRuns = new AbortController();
  /** HTTP generation requests not yet answered in full (a run's final event comes after it). */
  private httpRequests = 0;

  get startedWhileDraining(): number {
    return this.runsStartedDraining;
  }

  /** A WebSocket turn starts its run; true when the drain counted it (it started during one). */
  runStarted(): boolean {
    if (this.draining) this.runsStartedDraining += 1;
    return this.draining;
  }

  /** A run the drain counted was refused before it ran (the key's concurrency limit). */
  runRefused(): void {
    this.runsStartedDraining -= 1;
  }

  get httpInFlight(): number {
    return this.httpRequests;
  }

  /** Counts a generation request until its response is closed. */
  track(response: { once(event: "close", listener: () => void): unknown }): void {
    this.httpRequests += 1;
    response.once("close", () => {
      this.httpRequests -= 1;
    });
  }

  /** Aborted at the grace period's end: HTTP runs (no resume) end with a retryable failure. */
  get httpSignal(): AbortSignal {
    return this.httpRuns.signal;
  }

  start(): void {
    this.draining = true;
  }

  endGrace(): void {
    this.graceOver = true;
  }

  stopHttpRuns(): void {
    this.httpRuns.abort("draining");
  }
}

/** New work on a draining replica: 503 with Retry-After, which clients and load balancers retry. */
export function drainingError(): WireError {
  return new WireError(
    "engine_busy",
    "This replica is shutting down and takes no new work; send the request again (another replica will take it).",
    {
      wireCode: "server_shutting_down",
      status: 503,
      retryable: true,
      retryAfterMs: DRAIN_RETRY_AFTER_MS,
    },
  );
}
