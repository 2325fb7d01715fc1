// The read-only list reads options as each program does (issue 32, finding 1): bundles expanded,
// attached values checked, anything off a program's allow-list refused.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseOptions } from "./command-options.ts";
import { parseShellCommand } from "./parse-shell-command.ts";
import { readOnlyCommandProblem } from "./read-only-commands.ts";
import { PROGRAM_OPTIONS } from "./read-only-program-options.ts";

let workspaceRoot: string;

beforeAll(() => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "spark-read-only-"));
  workspaceRoot = path.join(base, "workspace");
  fs.mkdirSync(path.join(workspaceRoot, "src"), { recursive: true });
  fs.mkdirSync(path.join(base, "home"));
  fs.writeFileSync(path.join(workspaceRoot, "README.md"), "hello\n");
  fs.symlinkSync(path.join(base, "home"), path.join(workspaceRoot, "vendor"));
});
afterAll(() => fs.rmSync(path.dirname(workspaceRoot), { recursive: true, force: true }));

function problem(command: string): string | undefined {
  const parsed = parseShellCommand(command);
  if (parsed.kind !== "simple") throw new Error(`${command} is not simple`);
  return readOnlyCommandProblem(parsed.words, workspaceRoot, workspaceRoot);
}

describe("parseOptions", () => {
  it("expands bundles and takes attached or following values", () => {
    const grep = PROGRAM_OPTIONS["grep"];
    if (grep === undefined) throw new Error("no grep table");
    expect(parseOptions(["-rnA3", "-e", "-R", "--max-count=2", "x", "--", "-f"], grep)).toEqual({
      ok: true,
      parsed: { values: ["3", "-R", "2"], operands: ["x", "-f"] },
    });
    expect(parseOptions(["-nR", "x"], grep)).toEqual({ ok: false, refused: "-R" });
    expect(parseOptions(["-A", "three"], grep)).toMatchObject({ ok: false });
    expect(parseOptions(["--deref", "x"], grep)).toEqual({ ok: false, refused: "--deref" });
  });
});

// [program, command] pairs that run unasked.
const ALLOWED: [string, string][] = [
  ["grep", "grep -rn FAKE ."],
  ["grep", "grep -rniA3 FAKE src"],
  ["grep", "grep -e -R README.md"],
  ["grep", "grep '--include=*.ts' -r x ."],
  ["grep", "grep -c3 hello README.md"],
  ["ls", "ls -laR src"],
  ["ls", "ls --color=never -1 src"],
  ["du", "du -sh src"],
  ["du", "du -a --max-depth=2 ."],
  ["tail", "tail -n 5 README.md"],
  ["tail", "tail -20 README.md"],
  ["head", "head -c100 README.md"],
  ["cat", "cat -An README.md"],
  ["wc", "wc -lw README.md"],
  ["nl", "nl -ba -nrz README.md"],
  ["stat", "stat -c %s README.md"],
  ["rg", "rg -i -g '*.ts' TODO src"],
  ["rg", "rg -uu --hidden -n TODO"],
  ["find", "find src -name '*.ts' -type f -print"],
  ["find", "find . -maxdepth 2 '(' -name a -o -name b ')' -ls"],
  ["which", "which -a git"],
  ["echo", "echo -n -R --anything"],
  ["git", "git log -p -5 --stat --format=%h -- src"],
  ["git", "git log -n3 --oneline"],
  ["git", "git diff -M50% -U3 --cached --name-only"],
  ["git", "git show HEAD --stat"],
  ["git", "git status -sb -uno"],
  ["git", "git blame -w -L 1,5 README.md"],
  ["git", "git ls-files -co --exclude-standard"],
  ["git", "git branch -vv --show-current"],
  ["git", "git --no-pager log -1"],
];

// [program, command, the word the refusal names]
const REFUSED: [string, string, string][] = [
  ["grep", "grep -Rn FAKE .", "-R"],
  ["grep", "grep -nR FAKE .", "-R"],
  ["grep", "grep --dereference-recursive x .", "--dereference-recursive"],
  ["grep", "grep -f/abs/path .", "-f"],
  ["grep", "grep --file=/x .", "--file"],
  ["grep", "grep -rnf patterns .", "-f"],
  ["grep", "grep --exclude-from=list x .", "--exclude-from"],
  ["ls", "ls -RL", "-L"],
  ["ls", "ls -lH src", "-H"],
  ["ls", "ls --dereference", "--dereference"],
  ["ls", "ls --dereference-command-line-symlink-to-dir", "--dereference-command-line"],
  ["du", "du -aL", "-L"],
  ["du", "du -D .", "-D"],
  ["du", "du --files0-from=names", "--files0-from"],
  ["du", "du -X list .", "-X"],
  ["tail", "tail -qf README.md", "-f"],
  ["tail", "tail -F README.md", "-F"],
  ["tail", "tail --follow=name README.md", "--follow"],
  ["tail", "tail -5f README.md", "-5"],
  ["tail", "tail +5f README.md", "+5f"],
  ["tail", "tail --pid=1 README.md", "--pid"],
  ["tail", "tail -s 1 README.md", "-s"],
  ["stat", "stat -L README.md", "-L"],
  ["wc", "wc --files0-from=names", "--files0-from"],
  ["rg", "rg -Li FAKE", "-L"],
  ["rg", "rg --follow FAKE", "--follow"],
  ["rg", "rg --pre=./x FAKE", "--pre"],
  ["rg", "rg -z FAKE", "-z"],
  ["rg", "rg -f/abs/path", "-f"],
  ["rg", "rg --ignore-file=x FAKE", "--ignore-file"],
  ["rg", "rg --hostname-bin=x FAKE", "--hostname-bin"],
  ["find", "find -L .", "-L"],
  ["find", "find . -follow", "-follow"],
  ["find", "find . -exec cat '{}' ';'", "-exec"],
  ["find", "find . -fprint out", "-fprint"],
  ["find", "find . -files0-from names", "-files0-from"],
  ["git", "git diff -O/abs", "-O"],
  ["git", "git diff --output=out", "--output"],
  ["git", "git diff --ext-diff", "--ext-diff"],
  ["git", "git log --textconv -p", "--textconv"],
  ["git", "git -c core.pager=evil log", "-c"],
  ["git", "git -ccore.pager=evil log", "-ccore.pager=evil"],
  ["git", "git --exec-path=/x status", "--exec-path=/x"],
  ["git", "git --git-dir=/x status", "--git-dir=/x"],
  ["git", "git --work-tree=/x status", "--work-tree=/x"],
  ["git", "git -C /x status", "-C"],
  ["git", "git diff --no-index a b", "--no-index"],
  ["git", "git log --show-signature", "--show-signature"],
  ["git", "git show --remerge-diff", "--remerge-diff"],
  ["git", "git log --help", "--help"],
  ["git", "git blame --contents=/x README.md", "--contents"],
  ["git", "git status -v", "-v"],
  ["git", "git ls-files --recurse-submodules", "--recurse-submodules"],
  ["git", "git diff --submodule=diff", "--submodule"],
  ["git", "git branch evil", "evil"],
  ["git", "git branch -d main", "-d"],
  ["git", "git checkout .", "checkout"],
  ["pwd", "pwd -P", "-P"],
];

describe("the read-only list's options", () => {
  it.each(ALLOWED)("%s: %j runs unasked", (_program, command) => {
    expect(problem(command)).toBeUndefined();
  });

  it.each(REFUSED)("%s: %j asks, naming %j", (_program, command, word) => {
    expect(problem(command)).toContain(word);
  });

  it.each([
    ["an attached value", "grep -e/etc/passwd ."],
    ["a value after =", "grep --regexp=/etc/passwd ."],
    ["a link out as an operand", "grep -rn FAKE vendor"],
    ["a link out through find", "find vendor -name x"],
    ["a value after --", "git log -- --x=/etc"],
  ])("checks %s as a path: %j", (_label, command) => {
    expect(problem(command)).toContain("outside the workspace");
  });
});
