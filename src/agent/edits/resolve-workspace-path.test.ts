import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EditError } from "./edit-error.ts";
import { resolveWorkspacePath } from "./resolve-workspace-path.ts";

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

function outsideErrorOf(inputPath: string): EditError {
  try {
    resolveWorkspacePath(root, inputPath);
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
