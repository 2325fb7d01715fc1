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
    execArgv: ["--import", tsxLoader],
    stdio: options.inheritOutput === false ? "pipe" : ["ignore", "inherit", "inherit", "ipc"],
    serialization: "json",
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}
