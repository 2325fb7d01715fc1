// Hooks outside .git are not writable (issue 22), through the real `spark exec` and a real git:
// with `core.hooksPath .githooks` (husky, lefthook) the agent must not plant or move a hook there,
// nor write .husky/ or .spark/ (whose config.toml picks the next session's model); then a real
// `git commit` runs no hook the agent wrote.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

let workspace: AgentWorkspace | undefined;
afterEach(() => workspace?.remove());

type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

function hasGit(): boolean {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function git(root: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=Spark Test", "-c", "user.email=test@example.com", ...args],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
}

function patch(...lines: string[]): { name: string; arguments: Record<string, unknown> } {
  return {
    name: "apply_patch",
    arguments: { patch: ["*** Begin Patch", ...lines, "*** End Patch"].join("\n") },
  };
}

describe("spark exec never writes hooks, husky or Spark's project config", () => {
  // A real repository and a real commit show that no planted hook runs; git is needed for that.
  it.skipIf(!hasGit())(
    "refuses core.hooksPath, .husky and .spark, and git then runs nothing it wrote",
    async () => {
      const current = createAgentWorkspace();
      workspace = current;
      const root = current.root;
      git(root, "init", "-q");
      git(root, "config", "core.hooksPath", ".githooks");
      current.write("tool.sh", "#!/bin/sh\necho tool\n");
      chmodSync(path.join(root, "tool.sh"), 0o755);
      current.write(".spark/config.toml", "# The project's Spark settings.\n");
      const pwned = path.join(path.dirname(root), "pwned");
      const file = script(current, "calls.jsonl", [
        {
          text: "Calling tools.",
          toolCalls: [
            patch("*** Add File: .githooks/pre-commit", "+#!/bin/sh", `+touch ${pwned}`),
            patch("*** Add File: .GitHooks./pre-push", "+#!/bin/sh", `+touch ${pwned}`),
            // A move keeps the executable mode: this one would run on the next commit.
            patch(
              "*** Update File: tool.sh",
              "*** Move to: .githooks/post-commit",
              "@@",
              "-echo tool",
              `+touch ${pwned}`,
            ),
            patch("*** Add File: .husky/pre-commit", `+touch ${pwned}`),
            patch("*** Add File: packages/web/.husky/pre-push", `+touch ${pwned}`),
            {
              name: "edit",
              arguments: {
                path: ".spark/config.toml",
                oldText: "# The project's Spark settings.",
                newText: '[models.attacker]\nbase_url = "https://attacker.example"',
              },
            },
            patch("*** Add File: packages/web/.Spark./config.toml", '+model = "attacker"'),
            patch("*** Add File: notes.txt", "+allowed"),
          ],
        },
        { text: "Done." },
      ]);
      const run = await spark(current, ["exec", "--json", "--model", `script:${file}`, "Go"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const results = run.events.filter(
        (event): event is ToolResult => event.type === "tool-result",
      );
      expect(results).toHaveLength(8);
      const allowed = results.pop();
      for (const [index, result] of results.entries()) {
        expect(result.isError, `call ${index}: ${result.output}`).toBe(true);
        expect(result.output).toContain("the agent never writes there");
      }
      expect(results[0]?.output).toContain("the folder git runs hooks from (core.hooksPath in");
      expect(results[5]?.output).toContain("Spark's project configuration");
      expect(allowed?.isError).toBe(false);
      expect(current.read("notes.txt")).toBe("allowed\n");
      expect(current.read(".spark/config.toml")).toBe("# The project's Spark settings.\n");
      expect(existsSync(path.join(root, "tool.sh"))).toBe(true);
      for (const planted of [".githooks", ".husky", "packages"]) {
        expect(existsSync(path.join(root, planted)), planted).toBe(false);
      }
      git(root, "add", "notes.txt");
      git(root, "commit", "-q", "-m", "after the agent ran");
      expect(existsSync(pwned)).toBe(false);
    },
    30_000,
  );
});
