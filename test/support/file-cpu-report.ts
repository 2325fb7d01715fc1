// With SPARK_TEST_CPU=<file> (Linux), each test file appends one JSON line there: its wall time and
// the CPU its worker spent meanwhile, its own and that of the child processes it reaped (servers,
// CLIs; not a process whose own parent exits before reaping it: chromium's renderers, tmux's server,
// so browser and terminal files read low). A file whose CPU is far below its wall time waits:
// on two cores that is where the full run idles (see docs/development.md). Each line also says
// when the file ended and which worker ran it, to lay the run out in time (beside `vmstat -t`).
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

interface CpuSample {
  at: number;
  ownSeconds: number;
  childrenSeconds: number;
}

function sampleCpu(): CpuSample {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // After the command name (which may hold spaces): state is field 3, utime 14 … cstime 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = (index: number): number => Number(fields[index] ?? 0) / TICKS_PER_SECOND;
  return {
    at: performance.now(),
    ownSeconds: ticks(11) + ticks(12),
    childrenSeconds: ticks(13) + ticks(14),
  };
}

const output = process.env.SPARK_TEST_CPU;
if (output !== undefined && output !== "" && existsSync("/proc/self/stat")) {
  let started: CpuSample | undefined;
  let file = "";
  beforeAll(() => {
    file = path.relative(process.cwd(), expect.getState().testPath ?? "");
    started = sampleCpu();
  });
  afterAll(() => {
    if (started === undefined) return;
    const ended = sampleCpu();
    const line = {
      file,
      wallSeconds: (ended.at - started.at) / 1000,
      ownCpuSeconds: ended.ownSeconds - started.ownSeconds,
      childrenCpuSeconds: ended.childrenSeconds - started.childrenSeconds,
      endedAt: new Date().toISOString(),
      worker: process.pid,
    };
    appendFileSync(output, `${JSON.stringify(line)}\n`);
  });
}
