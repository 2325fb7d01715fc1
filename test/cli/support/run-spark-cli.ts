// The CLI tests' shared set-up: `bin/spark.js` run in a child process as a user runs it (exit code
// and both streams, never throwing), and a loopback port nothing listens on.
import { execFile } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

const SPARK = fileURLToPath(new URL("../../../bin/spark.js", import.meta.url));

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `spark <args>` in `cwd` with `env` over this process's environment. */
export function runSpark(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SPARK, ...args],
      { cwd, env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A loopback port nothing listens on: connecting to it is refused, as when offline. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
