// Runs the real Codex CLI binary (npm @openai/codex, pinned in package.json) non-interactively
// against a Spark server: a temporary CODEX_HOME holding the config.toml the README shows, and a
// temporary git repository as its working folder.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

const CODEX = fileURLToPath(
  new URL("../../../node_modules/@openai/codex/bin/codex.js", import.meta.url),
);

export interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The repository Codex worked in. */
  workspace: string;
}

export interface CodexRunOptions {
  /** The Spark server's base URL, e.g. http://127.0.0.1:7777. */
  serverUrl: string;
  model: string;
  /** true: Codex's Responses WebSocket transport (`supports_websockets = true`). */
  websockets: boolean;
  prompt: string;
  /** `codex exec --output-schema`: the final answer must be JSON valid against this schema. */
  outputSchema?: Record<string, unknown>;
}

/** The config.toml a user puts in ~/.codex to use Spark (docs/clients.md). */
export function codexConfigToml(options: Omit<CodexRunOptions, "prompt">): string {
  return [
    `model = "${options.model}"`,
    `model_provider = "spark"`,
    ``,
    `[model_providers.spark]`,
    `name = "Spark"`,
    `base_url = "${options.serverUrl}/v1"`,
    `wire_api = "responses"`,
    `env_key = "SPARK_API_KEY"`,
    ...(options.websockets ? [`supports_websockets = true`] : []),
    ``,
  ].join("\n");
}

export async function runCodexExec(options: CodexRunOptions): Promise<CodexRun> {
  const codexHome = await mkdtemp(path.join(os.tmpdir(), "spark-codex-home-"));
  const workspace = await mkdtemp(path.join(os.tmpdir(), "spark-codex-repo-"));
  await writeFile(path.join(codexHome, "config.toml"), codexConfigToml(options));
  await run("git", ["init", "--quiet"], workspace);
  const schemaArgs: string[] = [];
  if (options.outputSchema !== undefined) {
    const schemaPath = path.join(codexHome, "output-schema.json");
    await writeFile(schemaPath, JSON.stringify(options.outputSchema));
    schemaArgs.push("--output-schema", schemaPath);
  }
  // The container has no user namespaces for Codex's sandbox; the test machine is the sandbox.
  const args = [
    CODEX,
    "exec",
    "--skip-git-repo-check",
    "--dangerously-bypass-approvals-and-sandbox",
    ...schemaArgs,
    options.prompt,
  ];
  const child = spawn(process.execPath, args, {
    cwd: workspace,
    env: { ...process.env, CODEX_HOME: codexHome, SPARK_API_KEY: "unused" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  }).finally(() => rm(codexHome, { recursive: true, force: true }));
  // The test reads the workspace after the run: it goes when the test ends.
  onTestFinished(() => rm(workspace, { recursive: true, force: true }));
  return { code, stdout, stderr, workspace };
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: "ignore" });
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited ${String(code)}`)),
    );
  });
}
