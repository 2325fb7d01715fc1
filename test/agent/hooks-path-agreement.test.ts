// The edit tools and the command sandbox keep out of the same hooks folder, read by one reader
// (src/agent/edits/repository-hooks.ts): for a core.hooksPath set through an included config
// file, a conditional include (true now, and one that is not yet), an include inside an include,
// a linked worktree's common config and an outer repository, an edit there is refused, the
// sandbox binds the folder read-only, git's own answer is among what is protected, and a real
// bubblewrap command cannot write the hook. The bubblewrap part skips (saying why) where it
// cannot run and fails under CI=true, where .ci/run installs it.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EditError } from "../../src/agent/edits/edit-error.ts";
import { resolveWritablePath } from "../../src/agent/edits/resolve-workspace-path.ts";
import { bubblewrapSandbox } from "../../src/agent/sandbox/command-sandbox.ts";
import { probeCommandSandbox } from "../../src/agent/sandbox/detect-command-sandbox.ts";
import { findProtectedPaths } from "../../src/agent/sandbox/protected-workspace-paths.ts";
import { runProcess } from "../../src/agent/tools/run-process.ts";

const detection = await probeCommandSandbox({
  platform: process.platform,
  searchPath: process.env.PATH,
});
const missing = detection.kind === "none" ? detection.reason : undefined;
if (missing !== undefined) {
  if (process.env.CI === "true")
    throw new Error(`The sandbox tests must run in CI, but ${missing}.`);
  console.warn(`Skipping the bubblewrap half of the hooks-path tests: ${missing}.`);
}

const HOOK = "#!/bin/sh\necho the user's hook\n";

let base: string;
afterEach(() => rmSync(base, { recursive: true, force: true }));

// Git with no user or system config of its own, so only what a case writes counts.
const gitEnvironment = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};

function git(directory: string, ...args: string[]): string {
  return execFileSync("git", ["-C", directory, ...args], {
    env: gitEnvironment,
    encoding: "utf8",
  }).trim();
}

function writeFile(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

interface Case {
  /** The agent's workspace. */
  workspaceRoot: string;
  /** The hooks folder, relative to the workspace. */
  hooks: string;
  /** Whether git, asked now, finds this hooks folder (an `onbranch:` include may hold later). */
  gitSeesIt: boolean;
}

/** A fresh repository in a fresh folder under the system temp folder. */
function repository(): string {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-hooks-agreement-")));
  const root = path.join(base, "repo");
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  return root;
}

const cases: Record<string, () => Case> = {
  "include.path": () => {
    const root = repository();
    const team = writeFile(
      path.join(base, "team.gitconfig"),
      "[core]\n\thooksPath = tools/hooks\n",
    );
    git(root, "config", "include.path", team);
    return { workspaceRoot: root, hooks: "tools/hooks", gitSeesIt: true };
  },
  "includeIf gitdir (true now), relative to the including file": () => {
    const root = repository();
    writeFile(path.join(root, ".git", "hooks.inc"), '[core]\n\thooksPath = "team hooks"\n');
    git(root, "config", `includeIf.gitdir:${base}/.path`, "hooks.inc");
    return { workspaceRoot: root, hooks: "team hooks", gitSeesIt: true };
  },
  "includeIf onbranch (not the branch checked out now)": () => {
    const root = repository();
    const release = writeFile(
      path.join(base, "release.gitconfig"),
      "[core]\nhooksPath=.githooks\n",
    );
    git(root, "config", "includeIf.onbranch:release.path", release);
    return { workspaceRoot: root, hooks: ".githooks", gitSeesIt: false };
  },
  "an include inside an include": () => {
    const root = repository();
    const inner = writeFile(path.join(base, "inner.gitconfig"), "[core]\n\thooksPath = .hooks\n");
    const outer = writeFile(path.join(base, "outer.gitconfig"), `[include]\n\tpath = ${inner}\n`);
    git(root, "config", "include.path", outer);
    return { workspaceRoot: root, hooks: ".hooks", gitSeesIt: true };
  },
  "a linked worktree (the common config sets it)": () => {
    const root = repository();
    git(root, "commit", "-q", "--allow-empty", "-m", "first");
    git(root, "config", "core.hooksPath", ".githooks");
    const worktree = path.join(base, "worktree");
    git(root, "worktree", "add", "-q", worktree);
    return { workspaceRoot: worktree, hooks: ".githooks", gitSeesIt: true };
  },
  "a workspace inside the repository": () => {
    const root = repository();
    git(root, "config", "core.hooksPath", "packages/app/hooks");
    const workspaceRoot = path.join(root, "packages", "app");
    mkdirSync(workspaceRoot, { recursive: true });
    return { workspaceRoot, hooks: "hooks", gitSeesIt: true };
  },
};

/** Sets a case up with a hook in its hooks folder; the folder's real path. */
function setUp(name: string): Case & { hooksFolder: string } {
  const setup = cases[name]!();
  writeFile(path.join(setup.workspaceRoot, setup.hooks, "pre-commit"), HOOK);
  return { ...setup, hooksFolder: realpathSync(path.join(setup.workspaceRoot, setup.hooks)) };
}

function editRefusal(workspaceRoot: string, relativePath: string): EditError | undefined {
  try {
    resolveWritablePath(workspaceRoot, relativePath);
    return undefined;
  } catch (error) {
    if (error instanceof EditError) return error;
    throw error;
  }
}

describe.each(Object.keys(cases))("core.hooksPath through %s", (name) => {
  it("is refused to the edit tools and bound read-only for commands alike", () => {
    const { workspaceRoot, hooks, hooksFolder, gitSeesIt } = setUp(name);
    const refusal = editRefusal(workspaceRoot, `${hooks}/pre-commit`);
    expect(refusal?.editCode).toBe("protected_path");
    expect(refusal?.message).toContain("the folder git runs hooks from (core.hooksPath in");
    expect(editRefusal(workspaceRoot, `${hooks}/post-checkout`)?.editCode).toBe("protected_path");
    expect(editRefusal(workspaceRoot, "src/app.ts")).toBeUndefined();

    const found = findProtectedPaths(workspaceRoot);
    expect(found.readOnly).toContain(hooksFolder);
    expect(found.readOnly).not.toContain(workspaceRoot);

    const gitAnswer = git(
      workspaceRoot,
      "rev-parse",
      "--path-format=absolute",
      "--git-path",
      "hooks",
    );
    expect(realpathSync(gitAnswer) === hooksFolder).toBe(gitSeesIt);
  });

  it.skipIf(missing !== undefined)("cannot be written by a sandboxed command", async () => {
    const { workspaceRoot, hooks, hooksFolder } = setUp(name);
    const outcome = await runProcess({
      command: `echo evil > '${hooks}/pre-commit'; echo made > new-file.txt`,
      cwd: workspaceRoot,
      workspaceRoot,
      sandbox: bubblewrapSandbox(detection.kind === "bubblewrap" ? detection.bubblewrapPath : ""),
      timeoutMs: 10_000,
      signal: new AbortController().signal,
    });
    expect(outcome.output).toMatch(/Read-only file system/);
    expect(readFileSync(path.join(hooksFolder, "pre-commit"), "utf8")).toBe(HOOK);
    // The rest of the workspace stays writable: the folder, not the workspace, is protected.
    expect(readFileSync(path.join(workspaceRoot, "new-file.txt"), "utf8")).toBe("made\n");
  });
});

describe("a bare repository as the workspace", () => {
  it("is refused to the edit tools and bound read-only for commands alike", () => {
    base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-hooks-agreement-")));
    const root = path.join(base, "bare.git");
    execFileSync("git", ["init", "-q", "--bare", root], { env: gitEnvironment });
    expect(editRefusal(root, "hooks/pre-receive")?.editCode).toBe("protected_path");
    expect(editRefusal(root, "config")?.editCode).toBe("protected_path");
    expect(findProtectedPaths(root).readOnly).toContain(root);
  });
});
