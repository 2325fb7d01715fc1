// Test helper: `spark exec` as a user runs it, a child process in a temporary repository with
// SPARK_HOME in a temp dir and the model a script file; collects its JSONL events.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentEvent } from "../../../src/agent/agent-events.ts";
import type { AgentWorkspace } from "./agent-workspace.ts";

const SPARK = fileURLToPath(new URL("../../../bin/spark.js", import.meta.url));

export interface Run {
  code: number | null;
  events: AgentEvent[];
  stderr: string;
}

export function spark(
  workspace: AgentWorkspace,
  args: string[],
  onEvent?: (event: AgentEvent, child: ReturnType<typeof spawn>) => void,
  /** Variables set (or, when undefined, removed) on top of this process's environment. */
  environment: Record<string, string | undefined> = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SPARK, ...args], {
      cwd: workspace.root,
      env: {
        ...process.env,
        SPARK_HOME: path.dirname(workspace.sessionsDirectory),
        ...environment,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const events: AgentEvent[] = [];
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const lines = stdout.split("\n");
      stdout = lines.pop() ?? "";
      for (const line of lines) {
        const event = JSON.parse(line) as AgentEvent;
        events.push(event);
        onEvent?.(event, child);
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, events, stderr }));
  });
}

/** A command whose stdout is not JSONL events (sessions, undo). */
export function sparkText(
  workspace: AgentWorkspace,
  args: string[],
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SPARK, ...args], {
      cwd: workspace.root,
      env: { ...process.env, SPARK_HOME: path.dirname(workspace.sessionsDirectory) },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout }));
  });
}

export function script(workspace: AgentWorkspace, name: string, turns: unknown[]): string {
  const file = path.join(path.dirname(workspace.sessionsDirectory), name);
  writeFileSync(file, turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
  return file;
}
