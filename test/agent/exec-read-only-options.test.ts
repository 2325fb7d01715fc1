// The read-only list reads options as the programs do (issue 32, finding 1): through the real
// `spark exec`, a prompt-injected "model" (the scripted engine) runs bundled link-following
// options against a repository that ships `vendor -> $HOME`, where fake secrets lie. None runs
// unasked, none returns a secret, and `tail -qf` does not wait.
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
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

/** A fake home beside the workspace, its secrets, and the link to it the repository ships. */
function shipLinkToFakeHome(): string {
  const home = path.join(path.dirname(workspace.root), "user-home");
  mkdirSync(path.join(home, ".ssh"), { recursive: true });
  mkdirSync(path.join(home, ".aws"));
  mkdirSync(path.join(home, ".spark"));
  writeFileSync(path.join(home, ".ssh", "id_rsa"), "FAKE-SSH-PRIVATE-KEY\n");
  writeFileSync(path.join(home, ".aws", "credentials"), "aws_secret_access_key = FAKE-AWS\n");
  writeFileSync(path.join(home, ".spark", "config.toml"), 'api_keys = ["FAKE-SPARK-KEY"]\n');
  symlinkSync(home, path.join(workspace.root, "vendor"));
  workspace.write("README.md", "FAKE-in-the-workspace is fine to find\n");
  spawnSync("git", ["init", "-q"], { cwd: workspace.root });
  return home;
}

async function runCommands(commands: string[], home: string): Promise<ToolResult[]> {
  const file = script(workspace, "commands.jsonl", [
    {
      text: "Looking around.",
      toolCalls: commands.map((command) => ({
        name: "run_command",
        // Bounded, so a command that waits fails the test instead of hanging it.
        arguments: { command, timeoutMs: 5000 },
      })),
    },
    { text: "Done." },
  ]);
  const run = await spark(
    workspace,
    ["exec", "--json", "--model", `script:${file}`, "Look around the repository."],
    undefined,
    { HOME: home },
  );
  expect(run.code).toBe(0);
  const results = run.events.filter((event): event is ToolResult => event.type === "tool-result");
  expect(results).toHaveLength(commands.length);
  return results;
}

describe("spark exec: read-only options as the programs read them", () => {
  it("refuses bundled and attached options that read outside, and returns no secret", async () => {
    workspace = createAgentWorkspace();
    const home = shipLinkToFakeHome();
    const secret = path.join(home, ".ssh", "id_rsa");
    const attacks = [
      "grep -Rn FAKE .",
      "grep -nR FAKE .",
      "ls -RL",
      "du -aL",
      "tail -qf README.md",
      "rg -Li FAKE",
      `grep -f${secret} -r .`,
      `git diff -O${secret}`,
    ];
    const results = await runCommands([...attacks, "grep -rn FAKE ."], home);
    const control = results.pop();
    // The list still works: -r does not follow the link, so only the workspace's line is found.
    expect(control).toMatchObject({ isError: false });
    expect(control?.output).toContain("README.md:1:FAKE-in-the-workspace");
    expect(control?.output).not.toMatch(/FAKE-(SSH|AWS|SPARK)/);
    expect(results[0]?.output).toContain("-R is not among grep's read-only options");
    for (const [index, command] of attacks.entries()) {
      const output = results[index]?.output ?? "";
      expect(output, command).toMatch(/^not approved: ask the user/);
      // The refusal repeats the command (which names the key's path); nothing else may.
      expect(output.replace(command, ""), command).not.toMatch(
        /FAKE-(SSH|AWS|SPARK)|id_rsa|credentials|killed/,
      );
    }
  });
});
