// What the command sandbox costs per command: `true` run through runProcess (the mounts worked
// out, bwrap started, the guards run after it) against `true` run without a sandbox, side by
// side in one run; the median of interleaved runs. Linux with a working bwrap only.
// Usage: npx tsx bench/sandbox-command-start.ts [--runs 20]
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { bubblewrapSandbox, noCommandSandbox } from "../src/agent/sandbox/command-sandbox.ts";
import { detectCommandSandbox } from "../src/agent/sandbox/detect-command-sandbox.ts";
import { runProcess } from "../src/agent/tools/run-process.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "20" } } });
const runs = Number(values.runs);
const detection = await detectCommandSandbox();
if (detection.kind === "none") {
  console.log(`no sandbox here: ${detection.reason}`);
  process.exit(0);
}
const workspaceRoot = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-bench-sandbox-")));
const variants = {
  bubblewrap: bubblewrapSandbox(detection.bubblewrapPath),
  none: noCommandSandbox("benchmark baseline"),
};
const times: Record<keyof typeof variants, number[]> = { bubblewrap: [], none: [] };
try {
  for (let run = 0; run < runs; run++)
    for (const name of ["bubblewrap", "none"] as const) {
      const start = performance.now();
      const outcome = await runProcess({
        command: "true",
        cwd: workspaceRoot,
        workspaceRoot,
        sandbox: variants[name],
        timeoutMs: 10_000,
        signal: new AbortController().signal,
      });
      times[name].push(performance.now() - start);
      if (outcome.exitCode !== 0) throw new Error(`${name}: ${outcome.output}`);
    }
} finally {
  rmSync(workspaceRoot, { recursive: true, force: true });
}
const median = (values: number[]): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const sandboxed = median(times.bubblewrap);
const plain = median(times.none);
console.log(`runs: ${runs} each, interleaved; median from spawn to exit of \`true\``);
console.log(`  bubblewrap: ${sandboxed.toFixed(1)} ms`);
console.log(`  no sandbox: ${plain.toFixed(1)} ms`);
console.log(
  `  sandbox costs ${(sandboxed - plain).toFixed(1)} ms per command (${(sandboxed / plain).toFixed(1)}x)`,
);
