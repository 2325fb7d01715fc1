// The guard over every .git and .spark below the workspace, on real folders without bwrap (the
// sandbox's read-only binds are exercised by test/agent/exec-nested-metadata.test.ts): what it
// binds, and how it undoes a created, moved or swapped one.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findNestedMetadata } from "./find-nested-metadata.ts";
import { guardNestedMetadata } from "./nested-metadata-guard.ts";

let root: string;
const at = (...parts: string[]): string => path.join(root, ...parts);
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-nested-")));
  mkdirSync(at(".git"));
  mkdirSync(at("node_modules", "pkg", ".git"), { recursive: true });
  mkdirSync(at("sub"));
  writeFileSync(at("sub", ".git"), "gitdir: ../.git/modules/sub\n");
  mkdirSync(at("docs", ".spark"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("findNestedMetadata", () => {
  it("finds .git and .spark at any depth, node_modules included, without entering them", () => {
    mkdirSync(at(".git", "modules", "x", ".git"), { recursive: true });
    expect(findNestedMetadata(root).map((entry) => path.relative(root, entry.path))).toEqual([
      ".git",
      "docs/.spark",
      "node_modules/pkg/.git",
      "sub/.git",
    ]);
  });
});

describe("guardNestedMetadata", () => {
  it("binds every existing one and reports nothing when nothing changed", () => {
    const guard = guardNestedMetadata(root);
    expect(guard.readOnly.map((entry) => path.relative(root, entry))).toEqual([
      ".git",
      "docs/.spark",
      "node_modules/pkg/.git",
      "sub/.git",
    ]);
    expect(guard.undoChanges()).toEqual([]);
  });

  it("removes new ones, links unfollowed", () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), "spark-nested-outside-"));
    try {
      const guard = guardNestedMetadata(root);
      mkdirSync(at("a", "b", ".git"), { recursive: true });
      symlinkSync(outside, at("a", ".spark"));
      expect(guard.undoChanges()).toEqual([
        "[removed a/.spark: this command created it, and the agent's commands may not create Spark's project settings]",
        "[removed a/b/.git: this command created it, and the agent's commands may not create a git folder (git runs its config and hooks later, outside the sandbox)]",
      ]);
      expect(existsSync(at("a", "b", ".git"))).toBe(false);
      expect(existsSync(at("a", ".spark"))).toBe(false);
      expect(existsSync(outside)).toBe(true);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("moves back a submodule's .git file whose folder was moved and replaced", () => {
    const guard = guardNestedMetadata(root);
    renameSync(at("sub"), at("sub-old"));
    mkdirSync(at("sub", ".git"), { recursive: true });
    writeFileSync(at("sub", ".git", "config"), "[core]\n\tfsmonitor = evil\n");
    expect(guard.undoChanges()).toEqual([
      "[removed sub/.git: this command created it, and the agent's commands may not create a git folder (git runs its config and hooks later, outside the sandbox)]",
      "[put sub/.git back: this command moved it to sub-old/.git, and the agent's commands may not move or replace a git folder (git runs its config and hooks later, outside the sandbox)]",
    ]);
    expect(lstatSync(at("sub", ".git")).isFile()).toBe(true);
    expect(readFileSync(at("sub", ".git"), "utf8")).toBe("gitdir: ../.git/modules/sub\n");
    expect(existsSync(at("sub-old", ".git"))).toBe(false);
  });

  it("writes back a .git file whose bytes changed under the same inode", () => {
    // As a new file given the old one's freed inode number: the identity alone cannot tell.
    const guard = guardNestedMetadata(root);
    writeFileSync(at("sub", ".git"), "gitdir: /elsewhere\n");
    expect(guard.undoChanges()).toHaveLength(2);
    expect(readFileSync(at("sub", ".git"), "utf8")).toBe("gitdir: ../.git/modules/sub\n");
  });

  it("writes back a .git file or link that is gone", () => {
    symlinkSync("../elsewhere", at("docs", ".git"));
    const guard = guardNestedMetadata(root);
    unlinkSync(at("sub", ".git"));
    unlinkSync(at("docs", ".git"));
    symlinkSync("/", at("docs", ".git"));
    expect(guard.undoChanges()).toHaveLength(3);
    expect(readFileSync(at("sub", ".git"), "utf8")).toBe("gitdir: ../.git/modules/sub\n");
    expect(readlinkSync(at("docs", ".git"))).toBe("../elsewhere");
  });
});
