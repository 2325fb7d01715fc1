// The baseline of the serving-path scenario: the same engine streams consumed in the serving
// process itself, no gateway and no socket, timed exactly as the clients time the gateway's.
import type { Engine, EngineRequest } from "../../src/engines/engine.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { staggerOffset, tokenLateness, type Arrival } from "./token-lateness.ts";

export interface InProcessRunOptions {
  concurrency: number;
  turns: number;
  request: EngineRequest;
  intervalMs: number;
}

export interface InProcessRunResult {
  lateness: number[];
  firstTokenMs: number[];
  tokens: number;
  cpuMicros: number;
  wallMs: number;
}

export async function runInProcessStreams(
  engine: Engine,
  options: InProcessRunOptions,
): Promise<InProcessRunResult> {
  const lateness: number[] = [];
  const firstTokenMs: number[] = [];
  let tokens = 0;
  const cpuBefore = process.cpuUsage();
  const wallStartedAt = performance.now();
  const streamMs = (options.request.sampling?.maxOutputTokens ?? 1) * options.intervalMs;
  const worker = async (index: number): Promise<void> => {
    await sleep(staggerOffset(index, streamMs));
    for (let turn = 0; turn < options.turns; turn += 1) {
      const startedAt = performance.now();
      const arrivals: Arrival[] = [];
      for await (const event of engine.stream(options.request)) {
        if (event.type === "text-delta") arrivals.push({ at: performance.now(), tokens: 1 });
      }
      const first = arrivals[0];
      if (first !== undefined) firstTokenMs.push(first.at - startedAt);
      tokens += arrivals.length;
      for (const value of tokenLateness(startedAt, arrivals, options.intervalMs))
        lateness.push(value);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_unused, index) => worker(index)));
  const cpu = process.cpuUsage(cpuBefore);
  return {
    lateness,
    firstTokenMs,
    tokens,
    cpuMicros: cpu.user + cpu.system,
    wallMs: performance.now() - wallStartedAt,
  };
}
