// The router's Prometheus metrics, appended to the gateway's /metrics: attempts by outcome,
// retries, fallbacks, deadlines, route decisions, each upstream's circuit-breaker state, and each
// pool replica's health (probe and breaker) and requests served.
import { Counter, formatLabels } from "../metrics/prometheus-text.ts";
import type { BreakerState } from "./circuit-breaker.ts";
import type { ReplicaState } from "./upstream-pool.ts";

const BREAKER_STATE_VALUE: Record<BreakerState, number> = { closed: 0, "half-open": 1, open: 2 };

export class RouterMetrics {
  private readonly attempts = new Counter(
    "spark_router_attempts_total",
    "Upstream attempts by model and outcome (ok, error, skipped: circuit open).",
  );
  private readonly retries = new Counter(
    "spark_router_retries_total",
    "Retries of the same upstream after a retryable failure.",
  );
  private readonly fallbacks = new Counter(
    "spark_router_fallbacks_total",
    "Moves down a fallback chain, by the model left and the one tried next.",
  );
  private readonly deadlines = new Counter(
    "spark_router_deadline_exceeded_total",
    "Requests that ran past their deadline.",
  );
  private readonly decisions = new Counter(
    "spark_router_decisions_total",
    "Route decisions by route and the model chain's first link.",
  );
  private readonly transitions = new Counter(
    "spark_router_breaker_transitions_total",
    "Circuit-breaker state changes by upstream and new state.",
  );
  private readonly breakerStates = new Map<string, () => BreakerState>();
  private readonly pools = new Map<string, () => ReplicaState[]>();

  countAttempt(model: string, outcome: "ok" | "error" | "skipped"): void {
    this.attempts.add({ model, outcome });
  }

  countRetry(model: string): void {
    this.retries.add({ model });
  }

  countFallback(from: string, to: string): void {
    this.fallbacks.add({ from, to });
  }

  countDeadlineExceeded(): void {
    this.deadlines.add({});
  }

  countDecision(route: string, model: string): void {
    this.decisions.add({ route, model });
  }

  countBreakerTransition(upstream: string, state: BreakerState): void {
    this.transitions.add({ upstream, state });
  }

  /** Reads the state at render time, so an open circuit shows half-open once its time is up. */
  watchBreaker(upstream: string, state: () => BreakerState): void {
    this.breakerStates.set(upstream, state);
  }

  /** A pool model's replicas, read at render time like the breakers. */
  watchPool(model: string, replicas: () => ReplicaState[]): void {
    this.pools.set(model, replicas);
  }

  render(): string {
    let states =
      "# HELP spark_router_breaker_state Circuit state per upstream: 0 closed, 1 half-open, 2 open.\n# TYPE spark_router_breaker_state gauge\n";
    for (const [upstream, state] of this.breakerStates)
      states += `spark_router_breaker_state${formatLabels({ upstream })} ${BREAKER_STATE_VALUE[state()]}\n`;
    return (
      [
        this.decisions,
        this.attempts,
        this.retries,
        this.fallbacks,
        this.deadlines,
        this.transitions,
      ]
        .map((counter) => counter.render())
        .join("") +
      states +
      this.renderPools()
    );
  }

  private renderPools(): string {
    if (this.pools.size === 0) return "";
    const series = {
      up: "# HELP spark_router_replica_up Pool replicas in rotation: 0 while the health probe fails.\n# TYPE spark_router_replica_up gauge\n",
      breaker:
        "# HELP spark_router_replica_breaker_state Passive health per replica: 0 closed, 1 half-open, 2 open.\n# TYPE spark_router_replica_breaker_state gauge\n",
      served:
        "# HELP spark_router_replica_requests_total Requests each replica served without an error.\n# TYPE spark_router_replica_requests_total counter\n",
      probes:
        "# HELP spark_router_replica_probes_total Health probes by outcome (passed, failed).\n# TYPE spark_router_replica_probes_total counter\n",
    };
    for (const [model, replicas] of this.pools)
      for (const replica of replicas()) {
        const labels = { model, replica: replica.name };
        series.up += `spark_router_replica_up${formatLabels(labels)} ${replica.up ? 1 : 0}\n`;
        series.breaker += `spark_router_replica_breaker_state${formatLabels(labels)} ${BREAKER_STATE_VALUE[replica.breaker]}\n`;
        series.served += `spark_router_replica_requests_total${formatLabels(labels)} ${replica.served}\n`;
        series.probes += `spark_router_replica_probes_total${formatLabels({ ...labels, outcome: "passed" })} ${replica.probesPassed}\n`;
        series.probes += `spark_router_replica_probes_total${formatLabels({ ...labels, outcome: "failed" })} ${replica.probesFailed}\n`;
      }
    return series.up + series.breaker + series.served + series.probes;
  }
}
