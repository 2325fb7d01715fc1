// Scenario 2: what the serving path itself costs. A synthetic engine (tokens at a set pace, no
// compute) is read in-process and through the gateway at 1, 64 and 256 concurrent streams, over
// WebSocket and SSE: time added per token and per first token (p50/p99), and CPU per token.
import { BenchServer } from "../lib/bench-server.ts";
import { StreamClients, type StreamTransport } from "../lib/concurrent-streams.ts";
import type { InProcessRunResult } from "../lib/in-process-streams.ts";
import type { Scenario } from "../lib/scenario.ts";
import { figure, type ResultChart, type ScenarioResult } from "../lib/scenario-result.ts";
import { round, summarize, type Summary } from "../lib/stats.ts";

interface Cell {
  transport: StreamTransport;
  concurrency: number;
  tokens: number;
  wallMs: number;
  /** First token: request sent → first delta, minus the in-process stream() → first token. */
  roundTripP50: number;
  roundTripP99: number;
  /** Every token against the engine's schedule from the request's start, minus the same in process. */
  tokenOverheadP50: number;
  tokenOverheadP99: number;
  cpuMicrosPerToken: number;
  netCpuMicrosPerToken: number;
  /** The load generator's CPU (this process; the server is a child), so a saturated client shows. */
  clientCpuMicrosPerToken: number;
  lateness: Summary;
  firstToken: Summary;
}

interface Baseline {
  concurrency: number;
  tokens: number;
  lateness: Summary;
  firstToken: Summary;
  cpuMicrosPerToken: number;
}

const CONCURRENCY = [1, 64, 256];

export const servingPathCost: Scenario = {
  number: 2,
  id: "serving-path-cost",
  title: "Serving-path cost",
  async run(settings) {
    const startedAt = new Date();
    const { size } = settings;
    // Per stream; 256 staggered streams then deliver ~17-25k tokens/s, which two quiet cores can
    // serve and read without saturating, so what is measured is the path's cost, not a queue's.
    const tokensPerSecond = 100;
    const tokensPerStream = { full: 64, quick: 32, smoke: 8 }[size];
    const concurrencyLevels = size === "smoke" ? [1, 4] : CONCURRENCY;
    const turnsAt = (concurrency: number): number => {
      if (size === "smoke") return 1;
      if (concurrency === 1) return size === "full" ? 30 : 6;
      return size === "full" ? 4 : 2;
    };
    const intervalMs = 1000 / tokensPerSecond;
    const server = await BenchServer.start(
      { engine: { kind: "synthetic", tokensPerSecond, tokens: tokensPerStream }, probe: false },
      settings.signal,
    );
    const cells: Cell[] = [];
    const baselines: Baseline[] = [];
    try {
      for (const concurrency of concurrencyLevels) {
        const turns = turnsAt(concurrency);
        const request = {
          messages: [{ role: "user" as const, content: "Stream the benchmark tokens." }],
          sampling: { maxOutputTokens: tokensPerStream },
        };
        await server.runInProcess({ concurrency, turns: 1, request, intervalMs });
        const inProcess = await server.runInProcess({ concurrency, turns, request, intervalMs });
        const baseline = toBaseline(concurrency, inProcess);
        baselines.push(baseline);
        for (const transport of ["ws", "sse"] as const) {
          const clients = await StreamClients.open({
            baseUrl: server.url,
            model: server.model,
            transport,
            concurrency,
            tokensPerStream,
            intervalMs,
            signal: settings.signal,
          });
          try {
            await clients.run(1);
            const cpuBefore = await server.cpuMicros();
            const clientCpuBefore = process.cpuUsage();
            const result = await clients.run(turns);
            const clientCpu = process.cpuUsage(clientCpuBefore);
            const cpuMicros = (await server.cpuMicros()) - cpuBefore;
            const lateness = summarize(result.lateness);
            const firstToken = summarize(result.firstTokenMs);
            const cell: Cell = {
              transport,
              concurrency,
              tokens: result.tokens,
              wallMs: result.wallMs,
              roundTripP50: firstToken.p50 - baseline.firstToken.p50,
              roundTripP99: firstToken.p99 - baseline.firstToken.p99,
              tokenOverheadP50: lateness.p50 - baseline.lateness.p50,
              tokenOverheadP99: lateness.p99 - baseline.lateness.p99,
              cpuMicrosPerToken: cpuMicros / Math.max(1, result.tokens),
              netCpuMicrosPerToken:
                cpuMicros / Math.max(1, result.tokens) - baseline.cpuMicrosPerToken,
              clientCpuMicrosPerToken:
                (clientCpu.user + clientCpu.system) / Math.max(1, result.tokens),
              lateness,
              firstToken,
            };
            cells.push(cell);
            settings.log(
              `  ${transport} × ${concurrency}: ${result.tokens} tokens, round trip +${round(cell.roundTripP50, 3)}/${round(cell.roundTripP99, 3)} ms, per token +${round(cell.tokenOverheadP50, 3)}/${round(cell.tokenOverheadP99, 3)} ms (p50/p99), ${round(cell.netCpuMicrosPerToken, 2)} µs CPU/token (net), client ${round(cell.clientCpuMicrosPerToken, 2)} µs/token`,
            );
          } finally {
            await clients.close();
          }
        }
      }
    } finally {
      await server.close();
    }
    return buildResult(cells, baselines, startedAt, {
      engine: `synthetic, ${tokensPerSecond} tokens/s per stream, ${tokensPerStream} tokens per stream`,
      concurrency: concurrencyLevels,
      turnsPerStream: Object.fromEntries(concurrencyLevels.map((level) => [level, turnsAt(level)])),
      size,
    });
  },
};

function toBaseline(concurrency: number, run: InProcessRunResult): Baseline {
  return {
    concurrency,
    tokens: run.tokens,
    lateness: summarize(run.lateness),
    firstToken: summarize(run.firstTokenMs),
    cpuMicrosPerToken: run.cpuMicros / Math.max(1, run.tokens),
  };
}

function buildResult(
  cells: Cell[],
  baselines: Baseline[],
  startedAt: Date,
  configuration: Record<string, unknown>,
): ScenarioResult {
  const top = Math.max(...cells.map((cell) => cell.concurrency));
  const at = (transport: StreamTransport) =>
    cells.find((cell) => cell.transport === transport && cell.concurrency === top);
  const ws = at("ws");
  const sse = at("sse");
  const value = (cell: Cell | undefined, pick: (cell: Cell) => number, digits = 3) =>
    cell === undefined ? null : round(pick(cell), digits);
  const levels = [...new Set(cells.map((cell) => cell.concurrency))];
  const barChart = (
    file: string,
    title: string,
    yLabel: string,
    picks: Array<[string, StreamTransport, (cell: Cell) => number]>,
  ): ResultChart => ({
    file,
    title,
    kind: "bar",
    xLabel: "concurrent streams",
    yLabel,
    categories: levels.map(String),
    series: picks.map(([name, transport, pick]) => ({
      name,
      points: levels.map((level, index) => {
        const cell = cells.find(
          (entry) => entry.transport === transport && entry.concurrency === level,
        );
        return [index, cell === undefined ? Number.NaN : round(pick(cell), 3)] as [number, number];
      }),
    })),
  });
  return {
    scenario: 2,
    id: "serving-path-cost",
    title: "Serving-path cost",
    status: "ran",
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    configuration,
    figures: [
      figure(
        `WebSocket round trip overhead p50 @ ${top} streams`,
        value(ws, (cell) => cell.roundTripP50),
        "ms",
        { comparison: "<=", value: 0.5 },
      ),
      figure(
        `WebSocket round trip overhead p99 @ ${top} streams`,
        value(ws, (cell) => cell.roundTripP99),
        "ms",
        { comparison: "<=", value: 2 },
      ),
      figure(
        `WebSocket per-token overhead p50 @ ${top} streams`,
        value(ws, (cell) => cell.tokenOverheadP50),
        "ms",
        { comparison: "<=", value: 0.5 },
      ),
      figure(
        `WebSocket per-token overhead p99 @ ${top} streams`,
        value(ws, (cell) => cell.tokenOverheadP99),
        "ms",
        { comparison: "<=", value: 2 },
      ),
      figure(
        `WebSocket serving CPU per token @ ${top} streams`,
        value(ws, (cell) => cell.netCpuMicrosPerToken, 2),
        "µs",
        { comparison: "<=", value: 2 },
      ),
      figure(
        `SSE round trip overhead p99 @ ${top} streams`,
        value(sse, (cell) => cell.roundTripP99),
        "ms",
      ),
      figure(
        `SSE per-token overhead p99 @ ${top} streams`,
        value(sse, (cell) => cell.tokenOverheadP99),
        "ms",
      ),
      figure(
        `SSE serving CPU per token @ ${top} streams`,
        value(sse, (cell) => cell.netCpuMicrosPerToken, 2),
        "µs",
      ),
    ],
    tables: [
      {
        title:
          "Through the gateway: time added over the in-process read (gateway percentile − in-process percentile)",
        columns: [
          "transport",
          "streams",
          "tokens",
          "tokens/s",
          "round trip p50 ms",
          "round trip p99 ms",
          "per token p50 ms",
          "per token p99 ms",
          "CPU µs/token",
          "net CPU µs/token",
          "client CPU µs/token",
        ],
        rows: cells.map((cell) => [
          cell.transport,
          cell.concurrency,
          cell.tokens,
          round((cell.tokens * 1000) / cell.wallMs, 0),
          round(cell.roundTripP50, 3),
          round(cell.roundTripP99, 3),
          round(cell.tokenOverheadP50, 3),
          round(cell.tokenOverheadP99, 3),
          round(cell.cpuMicrosPerToken, 2),
          round(cell.netCpuMicrosPerToken, 2),
          round(cell.clientCpuMicrosPerToken, 2),
        ]),
      },
      {
        title: "In-process baseline (the same engine streams read in the serving process)",
        columns: [
          "streams",
          "tokens",
          "first token p50 ms",
          "first token p99 ms",
          "per token p50 ms",
          "per token p99 ms",
          "engine CPU µs/token",
        ],
        rows: baselines.map((baseline) => [
          baseline.concurrency,
          baseline.tokens,
          round(baseline.firstToken.p50, 3),
          round(baseline.firstToken.p99, 3),
          round(baseline.lateness.p50, 3),
          round(baseline.lateness.p99, 3),
          round(baseline.cpuMicrosPerToken, 2),
        ]),
      },
    ],
    charts: [
      barChart(
        "serving-overhead-by-concurrency.svg",
        "Gateway overhead (p99) by concurrency",
        "added latency (ms)",
        [
          ["WebSocket round trip p99", "ws", (cell) => cell.roundTripP99],
          ["WebSocket per token p99", "ws", (cell) => cell.tokenOverheadP99],
          ["SSE round trip p99", "sse", (cell) => cell.roundTripP99],
          ["SSE per token p99", "sse", (cell) => cell.tokenOverheadP99],
        ],
      ),
      barChart(
        "serving-cpu-per-token.svg",
        "Serving CPU per streamed token",
        "µs per token (net of engine)",
        [
          ["WebSocket", "ws", (cell) => cell.netCpuMicrosPerToken],
          ["SSE", "sse", (cell) => cell.netCpuMicrosPerToken],
        ],
      ),
    ],
    notes: [
      "Round trip overhead = (request sent → first delta received, client side) − (stream() called → first token, read in process), p50 minus p50 and p99 minus p99.",
      "Per-token overhead: every token's arrival − the request's start − its place in the engine's schedule (index × token interval; the synthetic engine emits token i at i × interval after it starts), through the gateway minus the same read in process, percentile minus percentile. It is how much later each token reaches the client than an in-process caller would get it, round trip included.",
      "Streams start staggered over one stream's duration (as independent clients would), then each runs its turns back to back.",
      "Clients are a raw `ws` socket per stream and undici request() SSE over keep-alive connections, in the benchmark process; the gateway runs in its own process (createGateway, as spark serve builds it). Their own parsing is inside the measured time.",
      "CPU per token = the serving process's process.cpuUsage() (user + system) over the timed run ÷ tokens delivered; net subtracts the engine's own CPU per token from the in-process run, leaving the gateway's cost.",
      "At 1 stream the serving process's idle work (timers, garbage collection) is spread over few tokens, so CPU per token there overstates the per-token cost; the figures at the highest concurrency are the headline.",
      "The synthetic engine is used only in this scenario: it has no compute, so what is measured is the serving path.",
    ],
    data: { cells, baselines },
  };
}
