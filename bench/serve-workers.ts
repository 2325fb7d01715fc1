// `spark serve` with 1 worker against `--workers N`, side by side in one run: many concurrent
// WebSocket streams of paced tokens (the scripted engine, 100 tokens/s per stream), tokens per
// second per core of serving CPU (every serving process, the primary included) and p99 token
// lateness. `npx tsx bench/serve-workers.ts [--workers N] [--streams S] [--quick]`
import { readdirSync, readFileSync } from "node:fs";
import { StreamClients } from "./lib/concurrent-streams.ts";
import { formatTable } from "./lib/print-table.ts";
import { createReplicaFleet } from "../test/gateway/support/serve-replicas.ts";

const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const QUICK = process.argv.includes("--quick");
const WORKERS = argument("--workers", 2);
const STREAMS = argument("--streams", QUICK ? 64 : 256);
const TURNS = QUICK ? 1 : 2;
const TOKENS = 100;
const INTERVAL_MS = 10;

/** CPU time (µs) of a process and its children, from /proc (Linux). */
function treeCpuMicros(rootPid: number): number {
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      stats.set(Number(entry), {
        parent: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // Gone meanwhile.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let current = pid; current > 1; current = stats.get(current)?.parent ?? 0)
      if (current === rootPid) return true;
    return false;
  };
  let ticks = 0;
  for (const [pid, stat] of stats) if (inTree(pid)) ticks += stat.ticks;
  return (ticks / 100) * 1e6;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

interface Measured {
  workers: number;
  tokensPerSecond: number;
  coresUsed: number;
  p50: number;
  p99: number;
}

async function measure(workers: number): Promise<Measured> {
  const fleet = createReplicaFleet(
    `[serve]\nmax_concurrency_per_key = 100000\nmax_connections = 100000\n`,
  );
  const words = Array.from({ length: TOKENS }, (_, index) => `t${index}`).join(" ");
  // Every worker plays its own copy of the script: enough lines for all the streams' turns.
  const lines = Array.from({ length: STREAMS * (TURNS + 1) + 10 }, () => ({
    text: words,
    delayMs: INTERVAL_MS,
  }));
  const script = fleet.script("paced", lines);
  const args = [
    "--model",
    `script:${script}`,
    ...(workers > 1 ? ["--workers", String(workers)] : []),
  ];
  const serve = await fleet.start(args);
  const pid = serve.pid;
  try {
    const clients = await StreamClients.open({
      baseUrl: serve.url,
      model: "script",
      transport: "ws",
      concurrency: STREAMS,
      tokensPerStream: TOKENS,
      intervalMs: INTERVAL_MS,
      signal: new AbortController().signal,
    });
    await clients.run(1);
    const cpuBefore = treeCpuMicros(pid);
    const result = await clients.run(TURNS);
    const cpu = treeCpuMicros(pid) - cpuBefore;
    await clients.close();
    const seconds = result.wallMs / 1000;
    return {
      workers,
      tokensPerSecond: result.tokens / seconds,
      coresUsed: cpu / 1e6 / seconds,
      p50: percentile(result.lateness, 0.5),
      p99: percentile(result.lateness, 0.99),
    };
  } finally {
    await fleet.stopAll();
  }
}

async function main(): Promise<void> {
  const one = await measure(1);
  const many = await measure(WORKERS);
  const row = (measured: Measured): Array<string | number> => [
    measured.workers === 1 ? "1 worker" : `--workers ${measured.workers}`,
    measured.tokensPerSecond,
    measured.coresUsed,
    measured.tokensPerSecond / measured.coresUsed,
    (1e6 * measured.coresUsed) / measured.tokensPerSecond,
    measured.p50,
    measured.p99,
  ];
  console.log(
    formatTable({
      title: `spark serve, ${STREAMS} WebSocket streams × ${TURNS} turns × ${TOKENS} tokens at ${1000 / INTERVAL_MS} tokens/s (scripted engine), ${(await import("node:os")).availableParallelism()} cores`,
      columns: [
        "serving",
        "tokens/s",
        "cores used",
        "tokens/s per core",
        "CPU µs/token",
        "lateness p50 (ms)",
        "lateness p99 (ms)",
      ],
      rows: [row(one), row(many)],
    }),
  );
  console.log(
    `\n--workers ${WORKERS} vs 1: ${(many.tokensPerSecond / one.tokensPerSecond).toFixed(2)}× tokens/s, ` +
      `p99 ${(many.p99 / one.p99).toFixed(2)}× (the client and the engine's timers share these cores)`,
  );
}

await main();
