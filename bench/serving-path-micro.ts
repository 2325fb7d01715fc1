// A quick, repeatable look at the serving path's own cost (docs/serving-path-cost.md): the gateway
// with the synthetic engine in this process, the WebSocket clients in a child process, and this
// process's CPU per follow-up turn and per streamed token. `npx tsx bench/serving-path-micro.ts`;
// SPARK_BENCH_CPU_PROF=<dir> profiles the client child, `node --cpu-prof` this (serving) one.
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { Engine } from "../src/engines/engine.ts";
import { createSyntheticEngine } from "../src/engines/synthetic/synthetic-engine.ts";
import { createGateway, modelsFromEngine } from "../src/gateway/index.ts";
import { forkTypeScript } from "./lib/fork-typescript.ts";
import { WsTurnClient } from "./lib/ws-turn-client.ts";

interface ClientJob {
  url: string;
  mode: "turns" | "tokens";
  count: number;
  streams: number;
}

interface ClientReport {
  turns: number;
  tokens: number;
  deltas: number;
  gatewayOverheadMs: number[];
  /** Client side, per turn: request sent → first delta, and last delta → final event. */
  firstDeltaMs: number[];
  lastDeltaToEndMs: number[];
}

const TURNS = 200;
const TOKENS_PER_STREAM = 8192;
/** Scenario 1's output per follow-up turn, one token per tick as the embedded engine gives them. */
const TURN_TOKENS = 16;
const TURN_TOKENS_PER_SECOND = 1000;

async function runClient(job: ClientJob): Promise<ClientReport> {
  const report: ClientReport = {
    turns: 0,
    tokens: 0,
    deltas: 0,
    gatewayOverheadMs: [],
    firstDeltaMs: [],
    lastDeltaToEndMs: [],
  };
  if (job.mode === "turns") {
    const client = await WsTurnClient.connect(job.url);
    let previous: string | undefined;
    for (let turn = 0; turn < job.count; turn += 1) {
      const record = await client.runTurn({
        model: "synthetic",
        input: `Follow-up question number ${turn}.`,
        max_output_tokens: TURN_TOKENS,
        ...(previous === undefined ? {} : { previous_response_id: previous }),
      });
      previous = record.responseId ?? undefined;
      report.turns += 1;
      report.deltas += record.deltaCount;
      if (record.sparkTimings !== null)
        report.gatewayOverheadMs.push(record.sparkTimings.gateway_overhead_ms);
      if (record.firstDeltaAt !== null && record.lastDeltaAt !== null) {
        report.firstDeltaMs.push(record.firstDeltaAt - record.sentAt);
        report.lastDeltaToEndMs.push(record.endedAt - record.lastDeltaAt);
      }
    }
    client.close();
    return report;
  }
  const clients = await Promise.all(
    Array.from({ length: job.streams }, () => WsTurnClient.connect(job.url)),
  );
  const records = await Promise.all(
    clients.map((client) =>
      client.runTurn({ model: "synthetic", input: "Stream.", max_output_tokens: job.count }),
    ),
  );
  for (const client of clients) client.close();
  for (const record of records) {
    report.turns += 1;
    report.deltas += record.deltaCount;
    report.tokens += record.text.split(" ").length;
  }
  return report;
}

async function measure(
  url: string,
  job: Omit<ClientJob, "url">,
): Promise<{ report: ClientReport; cpuMicros: number }> {
  const child = forkTypeScript(fileURLToPath(import.meta.url), ["client"]);
  child.send({ ...job, url });
  const before = process.cpuUsage();
  const [report] = (await once(child, "message")) as [ClientReport];
  const used = process.cpuUsage(before);
  child.disconnect();
  return { report, cpuMicros: used.user + used.system };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The engine's own CPU per token, read in this process: subtracted to get the serving path's. */
async function engineMicrosPerToken(engine: Engine, streams: number): Promise<number> {
  const before = process.cpuUsage();
  let tokens = 0;
  await Promise.all(
    Array.from({ length: streams }, async () => {
      const request = {
        messages: [{ role: "user" as const, content: "Stream." }],
        sampling: { maxOutputTokens: TOKENS_PER_STREAM },
      };
      for await (const event of engine.stream(request))
        if (event.type === "text-delta") tokens += 1;
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / tokens;
}

async function serve(): Promise<void> {
  const engine = createSyntheticEngine({ tokens: TOKENS_PER_STREAM });
  const gateway = createGateway({
    models: modelsFromEngine(engine),
    config: { host: "127.0.0.1", port: 0, maxConcurrencyPerKey: 4096 },
  });
  const { url } = await gateway.listen();
  const turnEngine = createSyntheticEngine({ tokensPerSecond: TURN_TOKENS_PER_SECOND });
  const turnGateway = createGateway({
    models: modelsFromEngine(turnEngine),
    config: { host: "127.0.0.1", port: 0 },
  });
  const turnUrl = (await turnGateway.listen()).url;
  try {
    await measure(turnUrl, { mode: "turns", count: 50, streams: 1 });
    const turns = await measure(turnUrl, { mode: "turns", count: TURNS, streams: 1 });
    const overhead = turns.report.gatewayOverheadMs.slice(TURNS / 2);
    console.log(
      `follow-up turns: ${turns.report.turns}, gateway_overhead_ms p50 ${median(overhead).toFixed(3)}, ` +
        `serving CPU ${(turns.cpuMicros / turns.report.turns).toFixed(0)} µs/turn ` +
        `(${TURN_TOKENS} tokens each at ${TURN_TOKENS_PER_SECOND}/s, ${turns.report.deltas / turns.report.turns} deltas)`,
    );
    const late = (values: number[]): string => median(values.slice(TURNS / 2)).toFixed(3);
    console.log(
      `client side, p50 ms: request sent → first delta ${late(turns.report.firstDeltaMs)}, ` +
        `last delta → final event ${late(turns.report.lastDeltaToEndMs)}`,
    );
    for (const streams of [1, 16]) {
      await engineMicrosPerToken(engine, streams);
      const engineMicros = await engineMicrosPerToken(engine, streams);
      const tokens = await measure(url, { mode: "tokens", count: TOKENS_PER_STREAM, streams });
      const total = tokens.cpuMicros / tokens.report.tokens;
      console.log(
        `${streams} stream(s) × ${TOKENS_PER_STREAM} tokens unpaced: ${tokens.report.deltas} deltas, ` +
          `serving CPU ${total.toFixed(2)} µs/token, engine alone ${engineMicros.toFixed(2)}, ` +
          `net ${(total - engineMicros).toFixed(2)}`,
      );
    }
  } finally {
    await Promise.all([gateway.close(), turnGateway.close()]);
    await Promise.all([engine.dispose(), turnEngine.dispose()]);
  }
}

if (process.argv[2] === "client") {
  process.once("message", (job: ClientJob) => {
    void runClient(job).then((report) => process.send?.(report));
  });
} else {
  await serve();
}
