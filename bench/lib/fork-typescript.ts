// Starts a TypeScript module in a child Node process with tsx's loader and an IPC channel: the
// benchmarks' serving processes and probes run apart from the client that measures them.
import { fork, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export function forkTypeScript(
  modulePath: string,
  args: string[],
  options: { inheritOutput?: boolean; env?: NodeJS.ProcessEnv } = {},
): ChildProcess {
  return fork(modulePath, args, {
    execArgv: ["--import", tsxLoader, ...profileArguments()],
    stdio: options.inheritOutput === false ? "pipe" : ["ignore", "inherit", "inherit", "ipc"],
    serialization: "json",
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}

/** SPARK_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each forked process there (Node refuses
 * --cpu-prof in NODE_OPTIONS), so the serving process can be profiled under the bench's load. */
function profileArguments(): string[] {
  const directory = process.env.SPARK_BENCH_CPU_PROF;
  return directory === undefined || directory === ""
    ? []
    : // 100 µs samples: a turn's gateway work is a few hundred µs, invisible at the 1 ms default.
      ["--cpu-prof", `--cpu-prof-dir=${directory}`, "--cpu-prof-interval=100"];
}
