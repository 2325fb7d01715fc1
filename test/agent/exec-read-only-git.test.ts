// Read-only git commands run with the repository's code-running config neutralised (issue 32,
// finding 4): a repository delivered with its .git names programs in core.fsmonitor,
// diff.external, a textconv driver, a clean filter and a long-running process filter. Through
// the real `spark exec`, a real git and the sandbox, git status, diff, log -p, show and blame run
// unasked, and none of those programs runs.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

const bubblewrapRuns =
  process.platform === "linux" &&
  spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-net", "--die-with-parent", "true"])
    .status === 0;
if (!bubblewrapRuns && process.env.CI === "true") {
  throw new Error("CI needs bubblewrap (bwrap) for the sandbox tests");
}

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

function git(...args: string[]): void {
  const result = spawnSync("git", args, { cwd: workspace.root, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}

/** Each program leaves `ran-<name>` in the workspace (writable in the sandbox) and says so. */
function marker(name: string): string {
  return `touch '${path.join(workspace.root, `ran-${name}`)}'; echo RAN-${name}`;
}

/** A committed repository whose config names a program at every place git runs one. */
function plantCodeRunningConfig(): void {
  git("init", "-q");
  git("config", "user.email", "test@example.com");
  git("config", "user.name", "Test");
  workspace.write(".gitattributes", "*.txt filter=evil diff=evil\n*.md filter=evilprocess\n");
  workspace.write("notes.txt", "first\n");
  workspace.write("README.md", "readme\n");
  git("add", ".");
  git("commit", "-qm", "init");
  workspace.write("notes.txt", "first\nchanged\n");
  git("config", "core.fsmonitor", `${marker("fsmonitor")} #`);
  git("config", "diff.external", `${marker("external")} #`);
  git("config", "diff.evil.textconv", `${marker("textconv")}; cat`);
  git("config", "diff.evil.command", `${marker("command")} #`);
  git("config", "filter.evil.clean", `${marker("clean")} >&2; cat`);
  git("config", "filter.evilprocess.process", marker("process"));
  git("config", "core.pager", `${marker("pager")} #`);
  git("config", "log.showSignature", "true");
  git("config", "gpg.program", `${marker("gpg")} #`);
}

async function runCommands(commands: string[]): Promise<ToolResult[]> {
  const file = script(workspace, "git.jsonl", [
    {
      text: "Looking at the history.",
      toolCalls: commands.map((command) => ({
        name: "run_command",
        arguments: { command, timeoutMs: 20_000 },
      })),
    },
    { text: "Done." },
  ]);
  const run = await spark(workspace, [
    "exec",
    "--json",
    "--model",
    `script:${file}`,
    "What changed in this repository?",
  ]);
  expect(run.code).toBe(0);
  const results = run.events.filter((event): event is ToolResult => event.type === "tool-result");
  expect(results).toHaveLength(commands.length);
  return results;
}

describe("spark exec: read-only git commands neutralise the repository's config", () => {
  it("runs status, diff, log -p, show and blame unasked without starting a program", async () => {
    workspace = createAgentWorkspace();
    plantCodeRunningConfig();
    const commands = ["git status", "git diff", "git log -p", "git show", "git blame notes.txt"];
    const results = await runCommands(commands);
    for (const [index, command] of commands.entries()) {
      const output = results[index]?.output ?? "";
      expect(output, command).not.toMatch(/^not approved/);
      expect(output, command).toMatch(/\[exit code 0\]$/);
      expect(output, command).not.toContain("RAN-");
    }
    expect(results[0]?.output).toContain("modified:   notes.txt");
    expect(results[1]?.output).toContain("+changed");
    expect(results[2]?.output).toContain("+first");
    expect(results[4]?.output).toContain("Not Committed Yet");
    const ran = readdirSync(workspace.root).filter((name) => name.startsWith("ran-"));
    expect(ran).toEqual([]);
  });

  it("asks when the repository's config moves the working tree elsewhere", async () => {
    workspace = createAgentWorkspace();
    git("init", "-q");
    git("config", "core.worktree", path.dirname(workspace.root));
    const [result] = await runCommands(["git status"]);
    expect(result?.output).toMatch(/^not approved: ask the user.*core\.worktree/);
    expect(existsSync(path.join(workspace.root, "ran-fsmonitor"))).toBe(false);
  });
});
