// A real `spark serve` child process for the browser tests: a temporary repository as its only
// workspace root, SPARK_HOME in a temp dir, the model a script file; the URL read from its output.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAgentWorkspace, type AgentWorkspace } from "../../agent/support/agent-workspace.ts";

export const SPARK_BIN = fileURLToPath(new URL("../../../bin/spark.js", import.meta.url));

export interface SparkServeProcess {
  url: string;
  workspace: AgentWorkspace;
  /** SPARK_HOME: other `spark` commands given it share the server's sessions. */
  home: string;
  output(): string;
  /** Stops the server and keeps its workspace and SPARK_HOME (to start another on them). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export function writeScript(workspace: AgentWorkspace, name: string, turns: unknown[]): string {
  const file = path.join(path.dirname(workspace.sessionsDirectory), name);
  writeFileSync(file, turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
  return file;
}

export async function startSparkServe(
  turns: unknown[],
  options: { workspace?: AgentWorkspace; extraArgs?: string[]; configToml?: string } = {},
): Promise<SparkServeProcess> {
  const workspace = options.workspace ?? createAgentWorkspace();
  const home = path.dirname(workspace.sessionsDirectory);
  if (options.configToml !== undefined) {
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, "config.toml"), options.configToml);
  }
  const script = writeScript(workspace, `script-${Date.now()}.jsonl`, turns);
  const child = spawn(
    process.execPath,
    [
      SPARK_BIN,
      "serve",
      "--model",
      `script:${script}`,
      "--port",
      "0",
      ...(options.extraArgs ?? []),
    ],
    {
      cwd: workspace.root,
      env: { ...process.env, SPARK_HOME: home },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      reject(new Error(`spark serve exited with ${String(code)} before listening:\n${output}`)),
    );
  });
  return {
    url,
    workspace,
    home,
    output: () => output,
    stop: () => stopChild(child),
    close: () => stopChild(child).then(() => workspace.remove()),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
