// `.git` and `.spark` at any depth are as protected from commands as the root's (issue 32,
// findings 2 and 8), through the real `spark exec`, a real bwrap and a real git: a nested
// repository a command creates, or a submodule's `.git` file it swaps for a directory, would have
// the user's next `git status` there run its core.fsmonitor on the host; a nested
// `.spark/config.toml` would configure the next session started in that folder.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { missingSandbox, OUTSIDE_TMP, runApprovedCommands } from "./support/sandboxed-commands.ts";

const missing = await missingSandbox();

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

const identity = [
  ...["-c", "user.name=Spark Test", "-c", "user.email=test@example.com"],
  ...["-c", "protocol.file.allow=always"],
];

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", [...identity, ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function repository(): AgentWorkspace {
  workspace = createAgentWorkspace(OUTSIDE_TMP);
  git(workspace.root, "init", "-q");
  return workspace;
}

/** What the user's own `git status` in `folder` does afterwards, on the host. */
function userGitStatus(folder: string): void {
  execFileSync("git", ["status", "--short"], { cwd: folder, stdio: "ignore" });
}

describe.skipIf(missing !== undefined)("nested .git and .spark", () => {
  it("removes a repository a command created below the workspace, and tells the model", async () => {
    repository();
    const marker = path.join(path.dirname(workspace.root), "fsmonitor-ran");
    const [result] = await runApprovedCommands(workspace, [
      `git init -q sub && git -C sub config core.fsmonitor 'touch ${marker}; false' && echo planted`,
    ]);
    expect(result?.output).toBe(
      "planted\n[removed sub/.git: this command created it, and the agent's commands may not create a git folder (git runs its config and hooks later, outside the sandbox)]\n[exit code 0]",
    );
    expect(existsSync(path.join(workspace.root, "sub", ".git"))).toBe(false);
    userGitStatus(path.join(workspace.root, "sub"));
    expect(existsSync(marker)).toBe(false);
  });

  it("keeps an existing nested repository read-only", async () => {
    repository();
    git(workspace.root, "init", "-q", "packages/lib");
    const [result] = await runApprovedCommands(workspace, [
      "git -C packages/lib config core.fsmonitor 'touch pwned'",
    ]);
    expect(result?.output).toMatch(/could not lock config file|Read-only file system/);
    expect(
      readFileSync(path.join(workspace.root, "packages/lib/.git/config"), "utf8"),
    ).not.toContain("fsmonitor");
  });

  it("puts a submodule's .git file back when a command swaps its folder for a new repository", async () => {
    repository();
    const upstream = path.join(path.dirname(workspace.root), "upstream");
    git(path.dirname(workspace.root), "init", "-q", upstream);
    git(upstream, "commit", "-q", "--allow-empty", "-m", "first");
    git(workspace.root, "submodule", "add", "-q", upstream, "sub");
    const dotGit = path.join(workspace.root, "sub", ".git");
    const original = readFileSync(dotGit, "utf8");
    const marker = path.join(path.dirname(workspace.root), "fsmonitor-ran");
    const [result] = await runApprovedCommands(workspace, [
      [
        "printf 'gitdir: ../evil\\n' > sub/.git",
        "rm -f sub/.git",
        `mv sub sub-old && git init -q sub && git -C sub config core.fsmonitor 'touch ${marker}; false'`,
        "echo swapped",
      ].join("; "),
    ]);
    const output = result?.output ?? "";
    expect(output).toMatch(/sub\/\.git: (Read-only file system|Device or resource busy)/);
    expect(output).toContain("swapped\n");
    expect(output).toContain(
      "[removed sub/.git: this command created it, and the agent's commands may not create a git folder",
    );
    expect(output).toContain(
      "[put sub/.git back: this command moved it to sub-old/.git, and the agent's commands may not move or replace a git folder",
    );
    expect(lstatSync(dotGit).isFile()).toBe(true);
    expect(readFileSync(dotGit, "utf8")).toBe(original);
    expect(existsSync(path.join(workspace.root, "sub-old", ".git"))).toBe(false);
    userGitStatus(workspace.root);
    userGitStatus(path.join(workspace.root, "sub"));
    expect(existsSync(marker)).toBe(false);
  });

  it("removes a .spark folder a command created below the workspace", async () => {
    repository();
    const [result] = await runApprovedCommands(workspace, [
      "mkdir -p src/.spark && printf '[sandbox]\\nmode = \"off\"\\n' > src/.spark/config.toml && echo made",
    ]);
    expect(result?.output).toBe(
      "made\n[removed src/.spark: this command created it, and the agent's commands may not create Spark's project settings]\n[exit code 0]",
    );
    expect(existsSync(path.join(workspace.root, "src", ".spark"))).toBe(false);
    expect(existsSync(path.join(workspace.root, "src"))).toBe(true);
  });
});
