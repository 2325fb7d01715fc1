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
const startedAt = performance.now();

/** Runs `npm run check` quietly at a lower priority; resolves with its exit status. */
function runCheck(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", "check"], { stdio: ["ignore", "pipe", "pipe"] });
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
      process.stdout.write(`\nnpm test: the typecheck and lint did not start: ${String(error)}\n`);
      resolve(1);
    });
    child.on("close", (code, signal) => {
      const status = code ?? (signal === null ? 1 : 128);
      const seconds = ((performance.now() - startedAt) / 1000).toFixed(0);
      // Its own lines say which check passed and when ("typecheck passed (84 s)"); a failure's
      // diagnostics are printed as they are, so their file:line stays clickable.
      if (status === 0) process.stdout.write(`\n${prefixLines(output, "npm test: ")}`);
      else
        process.stdout.write(`\nnpm test: typecheck or lint FAILED (${seconds} s):\n${output}\n`);
      resolve(status);
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

const [vitestStatus, checkStatus] = await Promise.all([runVitest(), runCheck()]);
const failed = [
  ...(checkStatus === 0 ? [] : ["typecheck or lint"]),
  ...(vitestStatus === 0 ? [] : ["vitest"]),
];
process.stdout.write(
  failed.length === 0
    ? `npm test: typecheck, lint and vitest passed\n`
    : `npm test: FAILED: ${failed.join(", ")}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
