// What an injected prompt could make `spark exec` touch (issue 8): the scripted "model" searches,
// lists and reads through symlinks out of the workspace, and writes into git's metadata, where
// the user's next git command would run what it wrote. Every one must be refused.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

/** Runs one exec turn whose model makes `calls` in one step; answers the results in call order. */
async function runCalls(
  calls: { name: string; arguments: Record<string, unknown> }[],
): Promise<ToolResult[]> {
  const file = script(workspace, "calls.jsonl", [
    { text: "Calling tools.", toolCalls: calls },
    { text: "Done." },
  ]);
  const run = await spark(workspace, ["exec", "--json", "--model", `script:${file}`, "Go"]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const results = run.events.filter((event): event is ToolResult => event.type === "tool-result");
  expect(results).toHaveLength(calls.length);
  return results;
}

/** A folder beside the repository, outside the workspace, holding a secret. */
function outsideFolder(): string {
  const outside = path.join(path.dirname(workspace.root), "outside");
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, "secret.txt"), "SECRET-TOKEN=hunter2\n");
  return outside;
}

function patch(...lines: string[]): { name: string; arguments: Record<string, unknown> } {
  return {
    name: "apply_patch",
    arguments: { patch: ["*** Begin Patch", ...lines, "*** End Patch"].join("\n") },
  };
}

describe("spark exec reads only inside the workspace", () => {
  it("never searches, lists or reads through links that leave it, and survives link loops", async () => {
    workspace = createAgentWorkspace();
    const outside = outsideFolder();
    workspace.write("src/real.txt", "INSIDE-MARKER\n");
    symlinkSync(path.join(outside, "secret.txt"), path.join(workspace.root, "link.txt"));
    symlinkSync(outside, path.join(workspace.root, "linkdir"));
    symlinkSync("../../outside/secret.txt", path.join(workspace.root, "src", "relative-link.txt"));
    symlinkSync("real.txt", path.join(workspace.root, "src", "inside-link.txt"));
    symlinkSync("..", path.join(workspace.root, "src", "parent-loop"));
    symlinkSync("self-loop", path.join(workspace.root, "self-loop"));
    symlinkSync("loop-b", path.join(workspace.root, "loop-a"));
    symlinkSync("loop-a", path.join(workspace.root, "loop-b"));
    const [searchAll, listAll, searchInside, ...refusals] = await runCalls([
      { name: "search", arguments: { pattern: "SECRET" } },
      { name: "list_files", arguments: {} },
      { name: "search", arguments: { pattern: "INSIDE-MARKER" } },
      { name: "search", arguments: { pattern: "SECRET", path: "linkdir" } },
      { name: "search", arguments: { pattern: "SECRET", path: "link.txt" } },
      { name: "search", arguments: { pattern: "SECRET", path: "../outside" } },
      { name: "search", arguments: { pattern: "SECRET", path: outside } },
      { name: "list_files", arguments: { path: "linkdir" } },
      { name: "list_files", arguments: { path: ".." } },
      { name: "list_files", arguments: { path: outside } },
      { name: "read_file", arguments: { path: "link.txt" } },
      { name: "read_file", arguments: { path: "src/relative-link.txt" } },
      { name: "read_file", arguments: { path: "linkdir/secret.txt" } },
      { name: "read_file", arguments: { path: "../outside/secret.txt" } },
      { name: "read_file", arguments: { path: path.join(outside, "secret.txt") } },
    ]);
    expect(searchAll?.output).not.toContain("hunter2");
    expect(searchAll?.output).toMatch(/^No matches/);
    expect(listAll?.output.split("\n").sort()).toEqual(["src/inside-link.txt", "src/real.txt"]);
    expect(refusals).toHaveLength(12);
    for (const refused of refusals) {
      expect(refused?.isError).toBe(true);
      expect(refused?.output).not.toContain("hunter2");
      expect(refused?.output).toContain("outside the workspace");
    }
    // A link that stays inside is followed for reading.
    expect(searchInside?.output.split("\n").sort()).toEqual([
      "src/inside-link.txt:1: INSIDE-MARKER",
      "src/real.txt:1: INSIDE-MARKER",
    ]);
  });
});

describe("spark exec never writes git metadata or outside the workspace", () => {
  it("refuses hooks, config, .git spellings, links into .git, a .git file's git dir, and escapes", async () => {
    workspace = createAgentWorkspace();
    const outside = outsideFolder();
    const gitConfig = "[core]\n\trepositoryformatversion = 0\n";
    workspace.write(".git/config", gitConfig);
    workspace.write(".git/HEAD", "ref: refs/heads/main\n");
    workspace.write("notes.txt", "notes\n");
    workspace.write("move-me.sh", "echo hi\n");
    mkdirSync(path.join(workspace.root, ".git", "hooks"));
    symlinkSync(".git/hooks", path.join(workspace.root, "hooks-link"));
    symlinkSync(".git/config", path.join(workspace.root, "config-link"));
    // A submodule-style `.git` file naming a (separate) git directory inside the workspace.
    workspace.write("module/.git", "gitdir: ../meta\n");
    workspace.write("meta/config", gitConfig);
    workspace.write("meta/HEAD", "ref: refs/heads/main\n");
    mkdirSync(path.join(workspace.root, "meta", "refs"));
    mkdirSync(path.join(workspace.root, "meta", "objects"));
    symlinkSync(outside, path.join(workspace.root, "linkdir"));
    const hook = "#!/bin/sh\ntouch /tmp/spark-pwned\n";
    const results = await runCalls([
      patch("*** Add File: .git/hooks/pre-commit", `+${hook.split("\n")[0]}`, "+touch pwned"),
      {
        name: "edit",
        arguments: {
          path: ".git/config",
          oldText: "[core]\n",
          newText: '[core]\n\tfsmonitor = "touch pwned"\n',
        },
      },
      patch("*** Add File: .GIT/hooks/post-checkout", "+touch pwned"),
      patch("*** Add File: sub/.Git./hooks/post-checkout", "+touch pwned"),
      patch("*** Add File: vendor/lib/.git/hooks/pre-push", "+touch pwned"),
      patch("*** Add File: hooks-link/pre-push", "+touch pwned"),
      { name: "edit", arguments: { path: "config-link", oldText: "", newText: "x" } },
      patch(
        "*** Update File: move-me.sh",
        "*** Move to: .git/hooks/post-merge",
        "@@",
        "-echo hi",
        "+touch pwned",
      ),
      patch("*** Delete File: .git/HEAD"),
      patch("*** Add File: module/.git", "+gitdir: ../elsewhere"),
      patch("*** Add File: meta/hooks/pre-commit", "+touch pwned"),
      { name: "edit", arguments: { path: "meta/config", oldText: "[core]\n", newText: "[x]\n" } },
      patch("*** Add File: ../outside/planted.txt", "+x"),
      patch(`*** Add File: ${path.join(outside, "absolute.txt")}`, "+x"),
      patch("*** Add File: linkdir/through-link.txt", "+x"),
      { name: "edit", arguments: { path: "notes.txt", oldText: "notes", newText: "fine" } },
    ]);
    const [allowed] = results.splice(-1);
    for (const [index, result] of results.entries()) {
      expect(result.isError, `call ${index}: ${result.output}`).toBe(true);
    }
    for (const result of results.slice(0, 12)) {
      expect(result.output).toMatch(/git runs commands from|outside the workspace/);
    }
    expect(results[0]?.output).toContain(".git/hooks/pre-commit is inside the repository's .git");
    expect(results[10]?.output).toContain("is inside the git directory");
    for (const result of results.slice(12))
      expect(result.output).toContain("outside the workspace");
    expect(allowed?.isError).toBe(false);
    expect(workspace.read("notes.txt")).toBe("fine\n");
    expect(readFileSync(path.join(workspace.root, ".git", "config"), "utf8")).toBe(gitConfig);
    expect(workspace.read("meta/config")).toBe(gitConfig);
    expect(workspace.read("module/.git")).toBe("gitdir: ../meta\n");
    expect(existsSync(path.join(workspace.root, ".git", "HEAD"))).toBe(true);
    expect(existsSync(path.join(workspace.root, "move-me.sh"))).toBe(true);
    for (const planted of [
      ".git/hooks/pre-commit",
      ".git/hooks/post-checkout",
      ".git/hooks/pre-push",
      ".git/hooks/post-merge",
      "sub",
      "vendor",
      "meta/hooks/pre-commit",
    ]) {
      expect(existsSync(path.join(workspace.root, planted)), planted).toBe(false);
    }
    for (const planted of ["planted.txt", "absolute.txt", "through-link.txt"]) {
      expect(existsSync(path.join(outside, planted)), planted).toBe(false);
    }
  });
});
