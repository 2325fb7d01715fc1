// Runs the real Claude Code (npm @anthropic-ai/claude-code, pinned in package.json: 2.1.112, the
// last release that ships a JS cli.js rather than a per-platform binary) in `claude -p` mode
// against a Spark server, offline: a temporary HOME and CLAUDE_CONFIG_DIR, telemetry, the
// autoupdater and every non-essential request off, the key in ANTHROPIC_API_KEY (docs/clients.md).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLAUDE_CODE_CLI = fileURLToPath(
  new URL("../../../node_modules/@anthropic-ai/claude-code/cli.js", import.meta.url),
);

/** Why Claude Code cannot run here, or undefined when it can; under CI=true it must run. */
export function claudeCodeMissingReason(): string | undefined {
  if (existsSync(CLAUDE_CODE_CLI)) return undefined;
  const reason = "node_modules/@anthropic-ai/claude-code is not installed (run npm install)";
  if (process.env.CI === "true")
    throw new Error(`The Claude Code client test must run in CI, but ${reason}.`);
  return reason;
}

export interface ClaudeCodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ClaudeCodeRunOptions {
  /** The Spark server's base URL, e.g. http://127.0.0.1:7777 (no /v1). */
  serverUrl: string;
  apiKey: string;
  prompt: string;
  /** The folder Claude Code works in. */
  workspace: string;
  /** Extra arguments after `-p <prompt>` (`--output-format json`). */
  args?: string[];
  /** Extra environment (ANTHROPIC_MODEL…). */
  env?: Record<string, string>;
}

/** The environment docs/clients.md gives Claude Code for Spark, offline. */
export function claudeCodeEnvironment(
  options: Pick<ClaudeCodeRunOptions, "serverUrl" | "apiKey">,
  home: string,
): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: options.serverUrl,
    ANTHROPIC_API_KEY: options.apiKey,
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
  };
}

export async function runClaudeCode(options: ClaudeCodeRunOptions): Promise<ClaudeCodeRun> {
  const home = await mkdtemp(path.join(os.tmpdir(), "spark-claude-home-"));
  // Only what the run needs from the parent: no ANTHROPIC_* or CLAUDE_* of the machine's own.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("ANTHROPIC_") && !name.startsWith("CLAUDE_"),
    ),
  );
  // The tools the task needs, allowed up front: -p mode cannot ask, and the test machine runs as
  // root, where --dangerously-skip-permissions is refused.
  const args = [
    CLAUDE_CODE_CLI,
    "-p",
    options.prompt,
    "--allowedTools",
    "Read,Edit,Bash",
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: options.workspace,
    env: { ...inherited, ...claudeCodeEnvironment(options, home), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  }).finally(() => rm(home, { recursive: true, force: true }));
  return { code, stdout, stderr };
}
