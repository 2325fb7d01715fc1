// Starts the real `spark serve` CLI as a child process on 127.0.0.1 (a free port) with its own
// SPARK_HOME and config.toml, the way a user runs it, for tests that point real clients at it.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SPARK = fileURLToPath(new URL("../../../bin/spark.js", import.meta.url));
const LISTENING = /listening on (http:\/\/\S+)/;

export interface SparkServeProcess {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Everything the server wrote to stderr so far (its log). */
  log: () => string;
  /** GET /metrics as text. */
  metrics: () => Promise<string>;
  stop: () => Promise<void>;
  /** SIGKILL: the process dies at once, mid-stream, closing nothing gracefully. */
  kill: () => Promise<void>;
}

/**
 * `configToml` is the whole of SPARK_HOME/config.toml; `args` go after `spark serve --port 0`.
 * SPARK_HOME, and the `ownedPaths` the caller made for this server (its scripts), are removed
 * once it has stopped.
 */
export async function startSparkServe(
  configToml: string,
  args: string[] = [],
  ownedPaths: readonly string[] = [],
): Promise<SparkServeProcess> {
  const home = await mkdtemp(path.join(os.tmpdir(), "spark-serve-home-"));
  const removeFiles = async (): Promise<void> => {
    for (const owned of [home, ...ownedPaths]) await rm(owned, { recursive: true, force: true });
  };
  await writeFile(path.join(home, "config.toml"), configToml);
  const child = spawn(process.execPath, [SPARK, "serve", "--port", "0", ...args], {
    env: { ...process.env, SPARK_HOME: home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (): void => {
      const match = LISTENING.exec(stderr);
      if (match?.[1] === undefined) return;
      child.stderr?.off("data", onData);
      resolve(match[1]);
    };
    child.stderr?.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code) =>
      reject(new Error(`spark serve exited (${String(code)}) before listening:\n${stderr}`)),
    );
  }).catch(async (error: unknown) => {
    await stopChild(child, "SIGKILL");
    await removeFiles();
    throw error;
  });
  return {
    url,
    log: () => stderr,
    metrics: async () => (await fetch(`${url}/metrics`)).text(),
    stop: () => stopChild(child).then(removeFiles),
    kill: () => stopChild(child, "SIGKILL").then(removeFiles),
  };
}

/** spark_gateway_responses_total{transport, status="completed"} in GET /metrics' text: a case on a
 * server other cases share checks what it added. */
export function completedResponses(metricsText: string, transport: "http" | "ws"): number {
  const pattern = new RegExp(
    `^spark_gateway_responses_total\\{transport="${transport}",status="completed"\\} (\\d+)$`,
    "m",
  );
  return Number(pattern.exec(metricsText)?.[1] ?? 0);
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}
