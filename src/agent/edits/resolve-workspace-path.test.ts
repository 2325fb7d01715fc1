import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EditError } from "./edit-error.ts";
import { resolveWorkspacePath, resolveWritablePath } from "./resolve-workspace-path.ts";

let root: string;
let outsideDir: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-ws-")));
  outsideDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-outside-")));
  mkdirSync(path.join(root, "src"));
  writeFileSync(path.join(root, "src", "a.ts"), "a");
  writeFileSync(path.join(outsideDir, "secret.txt"), "secret");
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outsideDir, { recursive: true, force: true });
});

function outsideErrorOf(inputPath: string, resolve = resolveWorkspacePath): EditError {
  try {
    resolve(root, inputPath);
  } catch (error) {
    if (error instanceof EditError) return error;
    throw error;
  }
  throw new Error(`expected ${inputPath} to be refused`);
}

describe("resolveWorkspacePath", () => {
  it("resolves relative, absolute-inside and not-yet-existing paths", () => {
    expect(resolveWorkspacePath(root, "src/a.ts")).toEqual({
      absolutePath: path.join(root, "src", "a.ts"),
      relativePath: "src/a.ts",
      workspaceRoot: root,
    });
    expect(resolveWorkspacePath(root, path.join(root, "src/a.ts")).relativePath).toBe("src/a.ts");
    expect(resolveWorkspacePath(root, "new/dir/b.ts").relativePath).toBe("new/dir/b.ts");
    expect(resolveWorkspacePath(root, "src/../src/./a.ts").relativePath).toBe("src/a.ts");
  });

  it("follows a symlink that stays inside the workspace to its real target", () => {
    symlinkSync(path.join(root, "src"), path.join(root, "linked"));
    expect(resolveWorkspacePath(root, "linked/a.ts").absolutePath).toBe(
      path.join(root, "src", "a.ts"),
    );
  });

  it("refuses ../ escapes", () => {
    const error = outsideErrorOf("../outside.txt");
    expect(error.editCode).toBe("outside_workspace");
    expect(error.message).toContain("is outside the workspace");
    expect(outsideErrorOf("src/../../x").editCode).toBe("outside_workspace");
  });

  it("refuses absolute paths outside the workspace", () => {
    expect(outsideErrorOf(path.join(outsideDir, "secret.txt")).editCode).toBe("outside_workspace");
    expect(outsideErrorOf("/etc/passwd").editCode).toBe("outside_workspace");
  });

  it("refuses a symlinked folder inside the workspace that points outside", () => {
    symlinkSync(outsideDir, path.join(root, "escape"));
    const error = outsideErrorOf("escape/secret.txt");
    expect(error.editCode).toBe("outside_workspace");
    expect(error.message).toContain("resolves through a symbolic link");
    expect(outsideErrorOf("escape/new-file.txt").editCode).toBe("outside_workspace");
  });

  it("refuses a symlinked file pointing outside, and a dangling symlink", () => {
    symlinkSync(path.join(outsideDir, "secret.txt"), path.join(root, "src", "secret-link"));
    expect(outsideErrorOf("src/secret-link").editCode).toBe("outside_workspace");
    symlinkSync(path.join(outsideDir, "missing.txt"), path.join(root, "src", "dangling"));
    expect(outsideErrorOf("src/dangling").message).toContain("cannot be resolved");
  });

  it("refuses empty paths and NUL bytes without crashing", () => {
    expect(outsideErrorOf("").editCode).toBe("outside_workspace");
    expect(outsideErrorOf("a\0b").editCode).toBe("outside_workspace");
  });
});

describe("resolveWritablePath", () => {
  const protectedCode = (inputPath: string) =>
    outsideErrorOf(inputPath, resolveWritablePath).editCode;

  it("refuses .git under every spelling a file system may treat as .git, at any depth", () => {
    mkdirSync(path.join(root, ".git", "hooks"), { recursive: true });
    for (const inputPath of [
      ".git/config",
      ".git/hooks/pre-commit",
      ".GIT/config",
      "nested/deeper/.Git/hooks/x",
      ".git./config",
      ".git /config",
      ".g\u200cit/config",
      "GIT~1/config",
      ".git",
    ]) {
      expect(protectedCode(inputPath), inputPath).toBe("protected_path");
    }
    // Reading stays allowed: nothing executes from a read.
    expect(resolveWorkspacePath(root, ".git/config").relativePath).toBe(".git/config");
    expect(resolveWritablePath(root, "src/.github/workflow.yml").relativePath).toBe(
      "src/.github/workflow.yml",
    );
    expect(resolveWritablePath(root, "src/.gitignore").relativePath).toBe("src/.gitignore");
  });

  it("refuses the git directory a .git file points to, and links into .git", () => {
    writeFileSync(path.join(root, ".git"), "gitdir: separate-git-dir\n");
    mkdirSync(path.join(root, "separate-git-dir"));
    const error = outsideErrorOf("separate-git-dir/config", resolveWritablePath);
    expect(error.editCode).toBe("protected_path");
    expect(error.message).toContain("points to");
    expect(error.message).toContain("git runs commands from");
    mkdirSync(path.join(root, "real-git", "hooks"), { recursive: true });
    mkdirSync(path.join(root, "real-git", "refs"));
    mkdirSync(path.join(root, "real-git", "objects"));
    writeFileSync(path.join(root, "real-git", "HEAD"), "ref: refs/heads/main\n");
    expect(protectedCode("real-git/hooks/pre-commit")).toBe("protected_path");
    rmSync(path.join(root, ".git"));
    mkdirSync(path.join(root, ".git"));
    symlinkSync(".git", path.join(root, "innocent"));
    expect(protectedCode("innocent/config")).toBe("protected_path");
  });
});
