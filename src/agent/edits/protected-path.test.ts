// Writes refused beyond .git (issue 22): the folder core.hooksPath names (husky, lefthook set it),
// .husky/ and .spark/ at any depth, under the spellings a case-insensitive file system accepts.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EditError } from "./edit-error.ts";
import { resolveWritablePath } from "./resolve-workspace-path.ts";

let base: string;
let root: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-protected-")));
  root = path.join(base, "repo");
  mkdirSync(path.join(root, ".git"), { recursive: true });
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

function write(relativePath: string, content: string): void {
  const absolute = path.join(root, relativePath);
  mkdirSync(path.dirname(absolute), { recursive: true });
  writeFileSync(absolute, content);
}

function refusal(inputPath: string, workspaceRoot = root): EditError {
  try {
    resolveWritablePath(workspaceRoot, inputPath);
  } catch (error) {
    if (error instanceof EditError) return error;
    throw error;
  }
  throw new Error(`expected ${inputPath} to be refused`);
}

describe("resolveWritablePath and core.hooksPath", () => {
  it("refuses the folder a relative hooksPath names, under any spelling, existing or not", () => {
    write(".git/config", "[core]\n\tbare = false\n\thooksPath = .githooks\n");
    const error = refusal(".githooks/pre-commit");
    expect(error.editCode).toBe("protected_path");
    expect(error.message).toContain("the folder git runs hooks from (core.hooksPath in");
    expect(refusal(".GitHooks/pre-push").editCode).toBe("protected_path");
    expect(refusal(".githooks./post-checkout").editCode).toBe("protected_path");
    expect(refusal(".githooks").editCode).toBe("protected_path");
    mkdirSync(path.join(root, ".githooks"));
    expect(refusal("./.githooks/sub/../pre-commit").editCode).toBe("protected_path");
    expect(resolveWritablePath(root, ".githooks-notes.md").relativePath).toBe(".githooks-notes.md");
    expect(resolveWritablePath(root, "src/githooks/a.ts").relativePath).toBe("src/githooks/a.ts");
  });

  it("refuses an absolute hooksPath, a quoted one, and a link into the hooks folder", () => {
    write(".git/config", `[core]\n\thooksPath = "${path.join(root, "tools", "git hooks")}"\n`);
    mkdirSync(path.join(root, "tools", "git hooks"), { recursive: true });
    symlinkSync(path.join(root, "tools", "git hooks"), path.join(root, "hooks-link"));
    expect(refusal("tools/git hooks/pre-commit").editCode).toBe("protected_path");
    expect(refusal("hooks-link/pre-commit").editCode).toBe("protected_path");
    expect(resolveWritablePath(root, "tools/other.sh").relativePath).toBe("tools/other.sh");
  });

  it("reads the config of the git directory a .git file names, and of its common directory", () => {
    // A linked worktree: .git is a file naming a git dir whose commondir holds the shared config.
    rmSync(path.join(root, ".git"), { recursive: true });
    write(".git", `gitdir: ${path.join(base, "main", ".git", "worktrees", "wt")}\n`);
    write("../main/.git/worktrees/wt/commondir", "../..\n");
    write("../main/.git/config", "[core]\n\thooksPath = lefthook-hooks\n");
    expect(refusal("lefthook-hooks/pre-commit").message).toContain(
      path.join(base, "main", ".git", "config"),
    );
  });

  it("applies an outer repository's hooksPath inside a nested repository", () => {
    write(".git/config", "[core]\n\thooksPath = vendor/tool/hooks\n");
    mkdirSync(path.join(root, "vendor", "tool", ".git"), { recursive: true });
    expect(refusal("vendor/tool/hooks/pre-commit").editCode).toBe("protected_path");
  });
});

describe("resolveWritablePath and tool folders", () => {
  it("refuses .husky and .spark at any depth and in any spelling", () => {
    for (const inputPath of [
      ".husky/pre-commit",
      ".husky/_/husky.sh",
      "packages/app/.husky/pre-push",
      ".HUSKY./pre-commit",
      ".spark/config.toml",
      "sub/.Spark/config.toml",
      ".spark /config.toml",
    ]) {
      const error = refusal(inputPath);
      expect(error.editCode, inputPath).toBe("protected_path");
    }
    expect(refusal(".spark/config.toml").message).toContain(
      "Spark's project configuration, which chooses the model",
    );
    expect(refusal(".husky/pre-commit").message).toContain("husky has git run hooks from");
    expect(resolveWritablePath(root, "docs/husky.md").relativePath).toBe("docs/husky.md");
    expect(resolveWritablePath(root, ".sparkle/a.txt").relativePath).toBe(".sparkle/a.txt");
  });

  it("refuses a link to .spark", () => {
    mkdirSync(path.join(root, ".spark"));
    symlinkSync(".spark", path.join(root, "settings"));
    expect(refusal("settings/config.toml").editCode).toBe("protected_path");
  });
});
