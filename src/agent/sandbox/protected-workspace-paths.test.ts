// Which workspace paths a command may not change, from a real git repository: .git, the folder
// core.hooksPath names, .husky and .spark; and what happens to one that a command creates.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { guardAbsentPaths } from "./guard-absent-paths.ts";
import { findProtectedPaths } from "./protected-workspace-paths.ts";

let base: string;
afterEach(() => rmSync(base, { recursive: true, force: true }));

function repository(): string {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-protected-")));
  const root = path.join(base, "repo");
  mkdirSync(root);
  execFileSync("git", ["init", "-q", root]);
  return root;
}

describe("findProtectedPaths", () => {
  it("binds .git and an existing .husky read-only, and guards a missing .spark and hooks folder", async () => {
    const root = repository();
    execFileSync("git", ["-C", root, "config", "core.hooksPath", ".githooks"]);
    mkdirSync(path.join(root, ".husky"));
    const found = findProtectedPaths(root);
    expect(found.readOnly).toEqual([path.join(root, ".git"), path.join(root, ".husky")]);
    expect(found.absent.map((entry) => path.relative(root, entry.path))).toEqual([
      ".spark",
      ".githooks",
    ]);
  });

  it("binds an existing .spark and hooks folder instead", async () => {
    const root = repository();
    execFileSync("git", ["-C", root, "config", "core.hooksPath", "tools/hooks"]);
    mkdirSync(path.join(root, "tools", "hooks"), { recursive: true });
    mkdirSync(path.join(root, ".spark"));
    const found = findProtectedPaths(root);
    expect(found.readOnly).toEqual([
      path.join(root, ".git"),
      path.join(root, ".spark"),
      path.join(root, "tools", "hooks"),
    ]);
    expect(found.absent.map((entry) => path.relative(root, entry.path))).toEqual([".husky"]);
  });

  it("names the git dir a worktree's .git file points to, wherever it is", async () => {
    const root = repository();
    execFileSync("git", ["-C", root, "commit", "-q", "--allow-empty", "-m", "first"], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
    const worktree = path.join(base, "worktree");
    execFileSync("git", ["-C", root, "worktree", "add", "-q", worktree]);
    const found = findProtectedPaths(worktree);
    expect(found.readOnly).toContain(path.join(worktree, ".git"));
    // sandbox-mounts.ts binds it where it would be hidden (/tmp, a home) or writable.
    expect(found.readOnly).toContain(path.join(root, ".git", "worktrees", "worktree"));
    expect(found.readOnly).toContain(path.join(root, ".git"));
  });
});

describe("guardAbsentPaths", () => {
  it("removes a .spark folder a command created, and says so", () => {
    const root = repository();
    const spark = { path: path.join(root, ".spark"), role: "Spark's project settings" };
    const guard = guardAbsentPaths(root, [spark]);
    mkdirSync(spark.path);
    writeFileSync(path.join(spark.path, "config.toml"), '[sandbox]\nmode = "off"\n');
    expect(guard.removeAppeared()).toEqual([
      "[removed .spark: this command created it, and the agent's commands may not create Spark's project settings]",
    ]);
    expect(existsSync(spark.path)).toBe(false);
  });

  it("removes a .spark link without following it, and leaves alone what was there before", () => {
    const root = repository();
    const outside = path.join(base, "outside");
    mkdirSync(outside);
    writeFileSync(path.join(outside, "keep.txt"), "kept");
    const spark = { path: path.join(root, ".spark"), role: "Spark's project settings" };
    const guard = guardAbsentPaths(root, [spark]);
    symlinkSync(outside, spark.path);
    expect(guard.removeAppeared()).toHaveLength(1);
    expect(existsSync(spark.path)).toBe(false);
    expect(readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("kept");
    expect(guardAbsentPaths(root, [spark]).removeAppeared()).toEqual([]);
  });
});
