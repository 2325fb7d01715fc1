// Neutralised git commands with a real git: what Spark inserts is valid for every subcommand on
// the list, and each driver the repository's config names is blanked by name.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { neutralGitCommand } from "./neutral-git-command.ts";
import { parseShellCommand, quoteShellWords } from "./parse-shell-command.ts";

let root: string;

function git(...args: string[]): void {
  execFileSync("git", args, { cwd: root, stdio: "ignore" });
}

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "spark-neutral-git-")));
  git("init", "-q");
  git("config", "user.email", "test@example.com");
  git("config", "user.name", "Test");
  fs.writeFileSync(path.join(root, ".gitattributes"), "*.txt filter=a.b diff=weird=name\n");
  fs.writeFileSync(path.join(root, "notes.txt"), "one\n");
  git("add", ".");
  git("commit", "-qm", "init");
  fs.writeFileSync(path.join(root, "notes.txt"), "one\ntwo\n");
  git("config", "filter.a.b.clean", "exit 3");
  git("config", "filter.a.b.required", "true");
  git("config", "diff.weird=name.textconv", "exit 3");
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function neutral(command: string): Promise<string[]> {
  const parsed = parseShellCommand(command);
  if (parsed.kind !== "simple") throw new Error(command);
  const result = await neutralGitCommand(parsed.words, root, [], AbortSignal.timeout(10_000));
  if (!result.ok) throw new Error(result.reason);
  return result.words;
}

describe("neutralGitCommand", () => {
  it("blanks each driver the config names, whatever characters the name has", async () => {
    const words = await neutral("git status");
    const assignments = words.filter((word) => word.startsWith("GIT_CONFIG_KEY_"));
    expect(assignments.map((word) => word.slice(word.indexOf("=") + 1))).toEqual(
      expect.arrayContaining([
        "filter.a.b.clean",
        "filter.a.b.required",
        "diff.weird=name.textconv",
      ]),
    );
  });

  it.each([
    "git status -sb -uno",
    "git diff -M50% -U3 --stat",
    "git log -p -n1 '--format=%h %G?'",
    "git show --stat HEAD",
    "git blame -w notes.txt",
    "git ls-files -co --exclude-standard",
    "git branch -vv",
    "git --no-pager log --oneline -1",
  ])("%j runs, and a required filter blanked does not stop it", async (command) => {
    const words = await neutral(command);
    const run = spawnSync("/bin/sh", ["-c", quoteShellWords(words)], {
      cwd: root,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
