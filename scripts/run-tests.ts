// `npm test`: the typecheck and the lint (one process over the same TypeScript programs:
// scripts/check.ts, ~66 s of CPU here where the two apart took ~98 s) run beside the vitest suite
// instead of before it. Single-threaded, on a 2-core machine it held the suite back ~2.5 minutes
// when run first; beside it, at a lower priority, it uses what the suite's waits leave free.
// vitest's output streams live (its summary is the run's summary); the check's output is printed
// when it fails, and the exit status is non-zero when either fails. The CLI bundle is built
// first, so the ~230 spawns of `spark` test the current code without tsx compiling it.
import { spawn } from "node:child_process";
import { setPriority } from "node:os";
import { buildCli } from "./build-cli.ts";

/**
 * The lowest: at 10 they still took ~10% of the CPU while the editor and browser files kept both
 * cores busy (the first ~6 minutes); at 19 they run in the waits later in the suite instead.
 */
const CHECK_PRIORITY = 19;
const checks = ["check"];
const startedAt = performance.now();

interface CheckResult {
  script: string;
  status: number;
}

/** Runs `npm run <script>` quietly at a lower priority; resolves with its status. */
function runCheck(script: string): Promise<CheckResult> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", script], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      if (child.pid !== undefined) setPriority(child.pid, CHECK_PRIORITY);
    } catch {
      // Not allowed here: it runs at the normal priority.
    }
    let output = "";
    const append = (chunk: Buffer): void => {
      output += chunk.toString();
    };
    child.stdout.on("data", append);
    child.stderr.on("data", append);
    child.on("error", (error) => {
      process.stdout.write(`\nnpm test: ${script} did not start: ${String(error)}\n`);
      resolve({ script, status: 1 });
    });
    child.on("close", (code, signal) => {
      const status = code ?? (signal === null ? 1 : 128);
      const seconds = ((performance.now() - startedAt) / 1000).toFixed(0);
      // Its own lines say which of its checks passed, and when.
      if (status === 0) process.stdout.write(`\n${prefixLines(output, "npm test: ")}`);
      else process.stdout.write(`\nnpm test: ${script} FAILED (${seconds} s):\n${output}\n`);
      resolve({ script, status });
    });
  });
}

function prefixLines(text: string, prefix: string): string {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => `${prefix}${line}\n`)
    .join("");
}

function runVitest(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn("npx", ["vitest", "run", ...process.argv.slice(2)], { stdio: "inherit" });
    child.on("error", () => resolve(1));
    child.on("close", (code) => resolve(code ?? 1));
  });
}

try {
  await buildCli();
} catch (error) {
  // The old bundle is older than the sources it failed on, so bin/spark.js runs them through tsx.
  process.stdout.write(`npm test: build:cli failed, spark runs through tsx: ${String(error)}\n`);
}

const [vitestStatus, ...checkResults] = await Promise.all([
  runVitest(),
  ...checks.map((script) => runCheck(script)),
]);
const failed = checkResults
  .filter((result) => result.status !== 0)
  .map((result) => (result.script === "check" ? "typecheck or lint" : result.script));
if (vitestStatus !== 0) failed.push("vitest");
process.stdout.write(
  failed.length === 0
    ? `npm test: typecheck, lint and vitest passed\n`
    : `npm test: FAILED: ${failed.join(", ")}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
