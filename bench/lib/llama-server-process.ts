// Starts llama.cpp's own llama-server as the peer to compare with: same GGUF, same threads (for
// generation and prompt processing), one slot, prompt cache on; stopped by its process id.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { SparkError } from "../../src/protocol/spark-error.ts";

export interface LlamaServerOptions {
  binaryPath: string;
  modelPath: string;
  threads: number;
  contextSize: number;
  signal: AbortSignal;
}

export interface LlamaServer {
  url: string;
  /** The command line it was started with, for the report. */
  commandLine: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string")
    throw new SparkError("internal_error", "No free port.");
  return address.port;
}

export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const port = await freePort();
  const args = [
    "-m",
    options.modelPath,
    "-t",
    String(options.threads),
    "-tb",
    String(options.threads),
    "-c",
    String(options.contextSize),
    "--parallel",
    "1",
    "--cache-prompt",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--no-webui",
  ];
  const child: ChildProcess = spawn(options.binaryPath, args, {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    log = (log + chunk).slice(-4000);
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  child.once("error", (error) => {
    log += String(error);
  });
  const url = `http://127.0.0.1:${port}`;
  const close = async (): Promise<void> => {
    if (!exited) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exit;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited || options.signal.aborted) break;
    try {
      const response = await fetch(`${url}/health`);
      if (response.status === 200) {
        return { url, commandLine: `${options.binaryPath} ${args.join(" ")}`, close };
      }
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  await close();
  throw new SparkError(
    "upstream_error",
    `llama-server did not become healthy (${exited ? "it exited" : "timed out"}): ${log.slice(-1500)}`,
  );
}
