// `spark exec` as a user runs it with routes in config: `auto` sends a security-sensitive task to
// deep and a short one to fast, and the JSONL stream carries the route event with its reason.
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "../agent/support/agent-workspace.ts";

const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));
const run = promisify(execFile);

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

it(
  "spark exec on auto routes each task and emits the route event",
  { timeout: 60_000 },
  async () => {
    workspace = createAgentWorkspace();
    const home = path.dirname(workspace.sessionsDirectory);
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, "fast.jsonl"), '{"text":"fast answered"}\n');
    writeFileSync(path.join(home, "deep.jsonl"), '{"text":"deep answered"}\n');
    writeFileSync(
      path.join(home, "config.toml"),
      `default_model = "auto"
[models.spark]
engine = "script"
path = "fast.jsonl"
[models.codex]
engine = "script"
path = "deep.jsonl"
[routes]
fast = "spark"
deep = "codex"
`,
    );
    const exec = async (task: string) => {
      const { stdout } = await run(process.execPath, [SPARK, "exec", "--json", task], {
        cwd: workspace.root,
        env: { ...process.env, SPARK_HOME: home },
      });
      return stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as AgentEvent);
    };
    const deep = await exec("Review the JWT validation for an exploit");
    expect(deep.find((event) => event.type === "route")).toMatchObject({
      model: "codex",
      reason: 'auto → deep: security-sensitive work: mentions "jwt"',
    });
    const text = deep.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
    expect(text).toBe("deep answered");
    const fast = await exec("rename a to b");
    expect(fast.find((event) => event.type === "route")).toMatchObject({ model: "spark" });
  },
);
