// The baseline of the serving-path scenario: the same engine streams consumed in the serving
// process itself, no gateway and no socket, timed exactly as the clients time the gateway's.
import type { Engine, EngineRequest } from "../../src/engines/engine.ts";
import { tokenLateness, type Arrival } from "./token-lateness.ts";

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
  const worker = async (): Promise<void> => {
    for (let turn = 0; turn < options.turns; turn += 1) {
      const startedAt = performance.now();
      const arrivals: Arrival[] = [];
      for await (const event of engine.stream(options.request)) {
        if (event.type === "text-delta") arrivals.push({ at: performance.now(), tokens: 1 });
      }
      const first = arrivals[0];
      if (first !== undefined) firstTokenMs.push(first.at - startedAt);
      tokens += arrivals.length;
      lateness.push(...tokenLateness(startedAt, arrivals, options.intervalMs));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const cpu = process.cpuUsage(cpuBefore);
  return {
    lateness,
    firstTokenMs,
    tokens,
    cpuMicros: cpu.user + cpu.system,
    wallMs: performance.now() - wallStartedAt,
  };
}
