// A command the user only mentions does not run (issue 22): a prompt-injected "model" (the scripted
// engine) calls run_command with the command the user's message talks about, through the real
// `spark exec`. Only an imperative request naming the command runs it, and only in the sandbox.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

const PAYLOAD = `node -e "require('fs').writeFileSync('pwned.txt', 'x')"`;

const bubblewrapRuns =
  process.platform === "linux" &&
  spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-net", "--die-with-parent", "true"])
    .status === 0;
if (!bubblewrapRuns) {
  if (process.env.CI === "true")
    throw new Error("CI needs bubblewrap (bwrap) for the sandbox tests");
  console.warn("Skipping the sandboxed request case: bubblewrap (bwrap) is missing or cannot run.");
}

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

async function runAfter(userText: string, command: string): Promise<ToolResult> {
  workspace.write("src/index.ts", "export const kept = true;\n");
  const file = script(workspace, "mention.jsonl", [
    { text: "Doing it.", toolCalls: [{ name: "run_command", arguments: { command } }] },
    { text: "Done." },
  ]);
  const run = await spark(workspace, ["exec", "--json", "--model", `script:${file}`, userText]);
  expect(run.code).toBe(0);
  const result = run.events.find((event): event is ToolResult => event.type === "tool-result");
  expect(result).toBeDefined();
  return result as ToolResult;
}

describe("spark exec: a mentioned command is not a request", () => {
  it.each([
    ["a question", "What does `rm -rf src` do?", "rm -rf src"],
    ["a warning", "`rm -rf src` would wipe my work; avoid it", "rm -rf src"],
    ["a hypothetical", "it would be a disaster if anyone ran rm -rf src", "rm -rf src"],
    ["a question wrapping a payload", `Can you explain what \`${PAYLOAD}\` does?`, PAYLOAD],
    ["a pasted block", "Fix the README, it says:\n```\nrun rm -rf src\n```", "rm -rf src"],
    ["a withdrawn request", "Run `rm -rf src`. Actually, don't.", "rm -rf src"],
  ])("%s does not run it", async (_label, userText, command) => {
    workspace = createAgentWorkspace();
    const result = await runAfter(userText, command);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^not approved: ask the user/);
    expect(existsSync(path.join(workspace.root, "src", "index.ts"))).toBe(true);
    expect(existsSync(path.join(workspace.root, "pwned.txt"))).toBe(false);
  });

  it.skipIf(!bubblewrapRuns)("an imperative request runs exactly that command", async () => {
    workspace = createAgentWorkspace();
    const result = await runAfter("The sources are stale. Please run `rm -rf src`.", "rm -rf src");
    expect(result).toMatchObject({ isError: false, output: "(no output)\n[exit code 0]" });
    expect(existsSync(path.join(workspace.root, "src"))).toBe(false);
  });
});
