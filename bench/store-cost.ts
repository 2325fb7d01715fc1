// What the shared store costs, Redis against this process's memory, side by side in one run on
// loopback: time added to a follow-up turn (p50) and serving CPU added per streamed token, each in
// a serving process of its own, Redis both waiting for each stored response's reply before the
// final event (the default since issue 39: completed means stored) and answering once the command
// is written (write-ahead, the path before, emulated by the bench server); then the failover time of a response whose
// replica is killed (SIGKILL → first resumed delta on another replica). Needs redis-server on PATH.
// `npx tsx bench/store-cost.ts [--quick]`
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { cpus, loadavg } from "node:os";
import { formatTable } from "./lib/print-table.ts";
import { forkTypeScript } from "./lib/fork-typescript.ts";
import { StreamClients } from "./lib/concurrent-streams.ts";
import { measureFailover } from "./lib/failover-timing.ts";
import type { StoreBenchMessage, StoreBenchSpec } from "./lib/store-bench-server.ts";
import { WsTurnClient } from "./lib/ws-turn-client.ts";
import {
  redisMissingReason,
  startRedisServer,
  type RedisServer,
} from "../test/support/redis-server.ts";

const QUICK = process.argv.includes("--quick");
const TURNS_PER_ROUND = QUICK ? 100 : 300;
const ROUNDS = QUICK ? 2 : 4;
const STREAMS = QUICK ? 64 : 256;
const TOKENS_PER_STREAM = 100;
const STREAM_INTERVAL_MS = 10;
const FAILOVERS = QUICK ? 1 : 3;
const LEASE_MS = 1000;
const SERVER = new URL("./lib/store-bench-server.ts", import.meta.url).pathname;

interface Server {
  url: string;
  child: ChildProcess;
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

async function startServer(spec: StoreBenchSpec): Promise<Server> {
  const child = forkTypeScript(SERVER, [JSON.stringify(spec)]);
  const [ready] = (await once(child, "message")) as [StoreBenchMessage];
  if (ready.type !== "ready") throw new Error("the bench server did not start");
  return {
    url: ready.url,
    child,
    async cpuMicros() {
      child.send({ type: "cpu" });
      const [reply] = (await once(child, "message")) as [StoreBenchMessage];
      return reply.type === "cpu" ? reply.userMicros + reply.systemMicros : Number.NaN;
    },
    async stop() {
      child.send({ type: "stop" });
      await once(child, "exit");
    },
  };
}

/** Chained follow-up turns over one WebSocket; client-observed turn times in ms. */
async function followUpTurns(url: string, turns: number): Promise<number[]> {
  const client = await WsTurnClient.connect(url);
  const times: number[] = [];
  let previous: string | undefined;
  for (let turn = 0; turn < turns; turn += 1) {
    const record = await client.runTurn({
      model: "synthetic",
      input: "Next.",
      max_output_tokens: 16,
      ...(previous === undefined ? {} : { previous_response_id: previous }),
    });
    // A long chain grows the prompt; every tenth turn starts a new one, so turns stay alike.
    previous = turn % 10 === 9 ? undefined : record.responseId;
    times.push(record.endedAt - record.sentAt);
  }
  client.close();
  return times;
}

/** Serving CPU (µs) per token and p99 token lateness (ms) at STREAMS concurrent streams. */
async function streamCost(server: Server): Promise<{ cpuPerToken: number; p99: number }> {
  const signal = new AbortController().signal;
  const clients = await StreamClients.open({
    baseUrl: server.url,
    model: "synthetic",
    transport: "ws",
    concurrency: STREAMS,
    tokensPerStream: TOKENS_PER_STREAM,
    intervalMs: STREAM_INTERVAL_MS,
    signal,
  });
  await clients.run(1);
  const cpuBefore = await server.cpuMicros();
  const result = await clients.run(QUICK ? 1 : 2);
  const cpu = (await server.cpuMicros()) - cpuBefore;
  await clients.close();
  return { cpuPerToken: cpu / result.tokens, p99: percentile(result.lateness, 0.99) };
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** CPU time (µs) a process has used so far, from /proc (Linux). */
function processCpuMicros(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks / 100) * 1e6;
  } catch {
    return Number.NaN;
  }
}

async function main(): Promise<void> {
  const missing = redisMissingReason();
  if (missing !== undefined) {
    console.log(`store-cost: skipped, ${missing}.`);
    return;
  }
  const redis: RedisServer = await startRedisServer();
  // Redis two ways: "waits" holds each turn's final event for the stored response's reply (the
  // default: completed means stored), "ahead" sends it once the command is written (the path
  // before, emulated by the bench server so the pair is measured side by side).
  const kinds = ["memory", "waits", "ahead"] as const;
  type Kind = (typeof kinds)[number];
  const spec = (kind: Kind, paced: boolean): StoreBenchSpec => ({
    tokensPerSecond: paced ? 1000 / STREAM_INTERVAL_MS : Infinity,
    tokens: paced ? TOKENS_PER_STREAM : 16,
    ...(kind === "memory" ? {} : { store: redis.url, answerBeforeReply: kind === "ahead" }),
  });
  const servers = {
    memory: await startServer(spec("memory", false)),
    waits: await startServer(spec("waits", false)),
    ahead: await startServer(spec("ahead", false)),
  };
  // Warm all, then alternate rounds so drift on the machine hits each alike.
  const turnTimes: Record<Kind, number[]> = { memory: [], waits: [], ahead: [] };
  for (const kind of kinds) await followUpTurns(servers[kind].url, 50);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const kind of kinds)
      turnTimes[kind].push(...(await followUpTurns(servers[kind].url, TURNS_PER_ROUND)));
  }
  await Promise.all(kinds.map((kind) => servers[kind].stop()));

  const streams = {} as Record<Kind, { cpuPerToken: number; p99: number }>;
  let redisServerCpu = 0;
  for (const kind of kinds) {
    const paced = await startServer(spec(kind, true));
    const redisCpuBefore = processCpuMicros(redis.pid);
    streams[kind] = await streamCost(paced);
    if (kind === "waits") redisServerCpu = processCpuMicros(redis.pid) - redisCpuBefore;
    await paced.stop();
  }

  const failovers = await measureFailover(redis.url, LEASE_MS, FAILOVERS);
  await redis.stop();

  const p50 = (kind: Kind): number => percentile(turnTimes[kind], 0.5);
  const p90 = (kind: Kind): number => percentile(turnTimes[kind], 0.9);
  const added = {
    waits: p50("waits") - p50("memory"),
    ahead: p50("ahead") - p50("memory"),
  };
  const tokenAdded = streams.waits.cpuPerToken - streams.memory.cpuPerToken;
  const [load1] = loadavg();
  console.log(
    formatTable({
      title: `Store cost on loopback (${ROUNDS}×${TURNS_PER_ROUND} follow-up turns per store, 16 tokens; ${STREAMS} streams × ${TOKENS_PER_STREAM} tokens at ${1000 / STREAM_INTERVAL_MS} tokens/s; load ${load1?.toFixed(1)} on ${cpus().length} CPUs)`,
      columns: [
        "measure",
        "memory",
        "redis, waits",
        "redis, ahead",
        "added (waits)",
        "added (ahead)",
        "target",
      ],
      rows: [
        [
          "follow-up turn p50 (ms)",
          p50("memory"),
          p50("waits"),
          p50("ahead"),
          added.waits,
          added.ahead,
          "≤ 0.3 ms added",
        ],
        [
          "follow-up turn p90 (ms)",
          p90("memory"),
          p90("waits"),
          p90("ahead"),
          p90("waits") - p90("memory"),
          p90("ahead") - p90("memory"),
          "",
        ],
        [
          "serving CPU per streamed token (µs)",
          streams.memory.cpuPerToken,
          streams.waits.cpuPerToken,
          streams.ahead.cpuPerToken,
          tokenAdded,
          streams.ahead.cpuPerToken - streams.memory.cpuPerToken,
          "≤ 2 µs added",
        ],
        [
          "token lateness p99 (ms)",
          streams.memory.p99,
          streams.waits.p99,
          streams.ahead.p99,
          streams.waits.p99 - streams.memory.p99,
          streams.ahead.p99 - streams.memory.p99,
          "",
        ],
        [
          "redis-server CPU per streamed token (µs)",
          "–",
          redisServerCpu / (STREAMS * TOKENS_PER_STREAM * (QUICK ? 1 : 2)),
          "",
          "",
          "",
          "(its own process)",
        ],
      ],
    }),
  );
  console.log(
    `\nverdict: turn ${added.waits <= 0.3 ? "met" : "missed"} (${added.waits.toFixed(3)} ms added p50 waiting for the stored response's reply, the default; ` +
      `${added.ahead.toFixed(3)} ms written ahead, the path before), ` +
      `token CPU ${tokenAdded <= 2 ? "met" : "missed"} (${tokenAdded.toFixed(2)} µs added)`,
  );
  console.log(
    `\nFailover (lease ${LEASE_MS} ms, target ≤ 1000 ms + lease): SIGKILL → first resumed delta ` +
      failovers.map((ms) => `${Math.round(ms)} ms`).join(", ") +
      ` — ${failovers.every((ms) => ms <= 1000 + LEASE_MS) ? "met" : "missed"}`,
  );
}

await main();
