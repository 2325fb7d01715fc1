// The gateway's Prometheus metrics (GET /metrics): time to first token, tokens, active streams,
// gateway overhead, errors by code and the embedded engine's decode loop, in the text exposition
// format, with no dependency.
import { Counter, formatLabels, gauge, type Labels } from "../metrics/prometheus-text.ts";

const LATENCY_BUCKETS_SECONDS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
const OVERHEAD_BUCKETS_SECONDS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1,
];

/** The response status a stateless (HTTP) stream is counted under, from how it finished. */
export function statusOfFinish(finishReason: string | undefined): string {
  return finishReason === "error"
    ? "failed"
    : finishReason === "cancelled"
      ? "incomplete"
      : "completed";
}

export interface ResponseObservation {
  transport: "ws" | "http";
  status: string;
  timeToFirstTokenMs: number | null;
  gatewayOverheadMs: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** The embedded engine's decode loop that ran it (timings.decodeLoop); unset for other engines. */
  decodeLoop?: "native" | "node-llama-cpp" | undefined;
}

export class GatewayMetrics {
  private readonly timeToFirstToken = new Histogram(
    "spark_gateway_time_to_first_token_seconds",
    "From request received to first output token sent.",
    LATENCY_BUCKETS_SECONDS,
  );
  private readonly overhead = new Histogram(
    "spark_gateway_overhead_seconds",
    "Time per response spent in the gateway's own code, not waiting for the engine.",
    OVERHEAD_BUCKETS_SECONDS,
  );
  private readonly responses = new Counter(
    "spark_gateway_responses_total",
    "Responses finished, by transport and status.",
  );
  private readonly tokens = new Counter(
    "spark_gateway_tokens_total",
    "Tokens by kind: input, cached_input, output.",
  );
  private readonly errors = new Counter(
    "spark_gateway_errors_total",
    "Errors sent to clients, by code.",
  );
  private readonly closes = new Counter(
    "spark_gateway_websocket_closes_total",
    "WebSocket closes by the server, by reason.",
  );
  private readonly decodeLoops = new Counter(
    "spark_gateway_decode_loop_responses_total",
    "Responses the embedded engine decoded, by loop: native (Spark's) or node-llama-cpp (the fallback).",
  );
  private readonly affinity = new Counter(
    "spark_gateway_chain_affinity_total",
    "Chained turns by where they ran: on the replica that served the previous turn (and holds its cache), or on another.",
  );
  private readonly merged = new Counter(
    "spark_gateway_merged_deltas_total",
    "Deltas merged into an earlier one because a client was not keeping up.",
  );
  private readonly continuations = new Counter(
    "spark_gateway_continued_responses_total",
    "Responses taken over from a replica that died, by how the rest was made: engine (it went on from the answer so far) or rerun (the request again, the text already sent skipped).",
  );
  private readonly retries = new Counter(
    "spark_gateway_retried_requests_total",
    "HTTP requests identical to one whose response was already under way (a client's retry), by how they were answered: replayed (it had finished), relayed (its replica still generates it), continued (its replica died; taken over here), attached (generating here, its client gone).",
  );
  private readonly notStored = new Counter(
    "spark_gateway_responses_not_stored_total",
    "Responses the store did not keep (answered with store: false), by reason: store_unavailable or store_full.",
  );
  private readonly drains = new Counter(
    "spark_gateway_drained_responses_total",
    "Responses in flight when a drain (SIGTERM) began, by outcome: finished, handed_over (to another replica) or stopped.",
  );
  private readonly storeFailures = new Counter(
    "spark_gateway_store_failures_total",
    "Calls to the shared store that failed (refused by its open breaker included), by what needed them.",
  );
  /** The shared store's health, read when /metrics is rendered (none: the store is local). */
  storeHealth: (() => { reachable: boolean; opened: number; refused: number }) | undefined;
  private activeStreams = 0;
  private connections = 0;

  observeResponse(observation: ResponseObservation): void {
    const labels = { transport: observation.transport };
    if (observation.timeToFirstTokenMs !== null)
      this.timeToFirstToken.observe(labels, observation.timeToFirstTokenMs / 1000);
    this.overhead.observe(labels, observation.gatewayOverheadMs / 1000);
    this.responses.add({ ...labels, status: observation.status });
    this.tokens.add({ kind: "input" }, observation.inputTokens);
    this.tokens.add({ kind: "cached_input" }, observation.cachedInputTokens);
    this.tokens.add({ kind: "output" }, observation.outputTokens);
    if (observation.decodeLoop !== undefined)
      this.decodeLoops.add({ loop: observation.decodeLoop });
  }

  countNotStored(reason: string): void {
    this.notStored.add({ reason });
  }

  countDrain(outcome: "finished" | "handed_over" | "stopped", count: number): void {
    for (let index = 0; index < count; index += 1) this.drains.add({ outcome });
  }

  countStoreFailure(what: string): void {
    this.storeFailures.add({ what });
  }

  countError(code: string): void {
    this.errors.add({ code });
  }

  /** A turn chained from a response another replica may have served (shared store only). */
  countChainAffinity(sameReplica: boolean): void {
    this.affinity.add({ replica: sameReplica ? "same" : "other" });
  }

  /** A response continued here after its replica died (continue-response.ts). */
  countContinuation(how: "engine" | "rerun"): void {
    this.continuations.add({ how });
  }

  countRetry(outcome: "replayed" | "relayed" | "continued" | "attached"): void {
    this.retries.add({ outcome });
  }

  countMergedDelta(): void {
    this.merged.add({});
  }

  countServerClose(reason: string): void {
    this.closes.add({ reason });
  }

  streamStarted(): void {
    this.activeStreams += 1;
  }

  streamEnded(): void {
    this.activeStreams -= 1;
  }

  connectionOpened(): void {
    this.connections += 1;
  }

  connectionClosed(): void {
    this.connections -= 1;
  }

  render(): string {
    return [
      this.timeToFirstToken.render(),
      this.overhead.render(),
      this.responses.render(),
      this.tokens.render(),
      this.errors.render(),
      this.closes.render(),
      this.decodeLoops.render(),
      this.merged.render(),
      this.affinity.render(),
      this.continuations.render(),
      this.retries.render(),
      this.notStored.render(),
      this.drains.render(),
      this.storeFailures.render(),
      this.renderStoreHealth(),
      gauge("spark_gateway_active_streams", "Responses generating now.", this.activeStreams),
      gauge("spark_gateway_websocket_connections", "Open WebSocket connections.", this.connections),
    ].join("");
  }

  private renderStoreHealth(): string {
    const health = this.storeHealth?.();
    if (health === undefined) return "";
    return (
      gauge(
        "spark_gateway_store_reachable",
        "1 while the shared store answers, 0 while its breaker is open (calls fail at once).",
        health.reachable ? 1 : 0,
      ) +
      gauge(
        "spark_gateway_store_breaker_opened",
        "Times the store's breaker opened (Redis down or not answering) since the start.",
        health.opened,
      ) +
      gauge(
        "spark_gateway_store_breaker_refused",
        "Store calls refused at once by the open breaker since the start.",
        health.refused,
      )
    );
  }
}

class Histogram {
  private readonly series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();

  constructor(
    private readonly name: string,
    private readonly help: string,
    private readonly buckets: number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = formatLabels(labels);
    let series = this.series.get(key);
    if (series === undefined) {
      series = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    this.buckets.forEach((bound, index) => {
      if (value <= bound && series !== undefined)
        series.counts[index] = (series.counts[index] ?? 0) + 1;
    });
    series.sum += value;
    series.count += 1;
  }

  render(): string {
    let text = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} histogram\n`;
    for (const series of this.series.values()) {
      this.buckets.forEach((bound, index) => {
        const labels = formatLabels({ ...series.labels, le: String(bound) });
        text += `${this.name}_bucket${labels} ${series.counts[index] ?? 0}\n`;
      });
      text += `${this.name}_bucket${formatLabels({ ...series.labels, le: "+Inf" })} ${series.count}\n`;
      text += `${this.name}_sum${formatLabels(series.labels)} ${series.sum}\n`;
      text += `${this.name}_count${formatLabels(series.labels)} ${series.count}\n`;
    }
    return text;
  }
}
