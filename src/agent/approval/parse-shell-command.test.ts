// The tokenizer behind command approval: plain words come out as the program receives them, and
// every shell feature family is named rather than passed through.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseShellCommand, quoteShellWords } from "./parse-shell-command.ts";

describe("parseShellCommand", () => {
  it("splits plain commands into the words the program receives", () => {
    expect(parseShellCommand("npm test")).toEqual({ kind: "simple", words: ["npm", "test"] });
    expect(parseShellCommand("  git   commit -m 'fix: it''s' \"a \\\"b\\\" \\\\\" c\\ d ")).toEqual(
      {
        kind: "simple",
        words: ["git", "commit", "-m", "fix: its", 'a "b" \\', "c d"],
      },
    );
    expect(parseShellCommand("echo a#b x=y --flag=1 a~b 'a$b' \"it's\"")).toEqual({
      kind: "simple",
      words: ["echo", "a#b", "x=y", "--flag=1", "a~b", "a$b", "it's"],
    });
  });

  it.each([
    ["npm test $(touch x)", "command substitution $(…)"],
    ["npm test `touch x`", "command substitution `…`"],
    ['npm test "$(touch x)"', 'expansion $ inside "…"'],
    ['npm test "`touch x`"', 'command substitution `…` inside "…"'],
    ["npm test $((1+1))", "command substitution $(…)"],
    ["npm test $HOME", "variable expansion $NAME"],
    ["npm test ${HOME}", "parameter expansion ${…}"],
    ["npm test $", "variable expansion $NAME"],
    ["npm test > out", "redirection >"],
    ["npm test >> out", "redirection >"],
    ["npm test < in", "redirection <"],
    ["cat << EOF", "redirection <"],
    ["npm test 2>&1", "redirection >"],
    ["npm test &> out", "redirection &>"],
    ["npm test; touch x", "command chaining ;"],
    ["npm test && touch x", "command chaining &&"],
    ["npm test || touch x", "command chaining ||"],
    ["npm test | sh", "pipe |"],
    ["npm test & touch x", "background job &"],
    ["npm test\ntouch x", "newline (a second command)"],
    ["npm test\r\ntouch x", "newline (a second command)"],
    ["npm test \\\ntouch x", "line continuation \\"],
    ["(touch x)", "subshell ( )"],
    ["npm test (x)", "subshell ( )"],
    ["{ touch x; }", "grouping or brace expansion { }"],
    ["echo {a,b}", "grouping or brace expansion { }"],
    ["diff <(ls) x", "process substitution <(…)"],
    ["tee >(sh)", "process substitution >(…)"],
    ["rm *", "glob *"],
    ["rm file?", "glob ?"],
    ["rm [ab]", "glob ["],
    ["npm test # && rm x", "comment #"],
    ["ls ~/secrets", "tilde expansion ~"],
    ["NODE_OPTIONS=--require=x npm test", "environment assignment NAME=value"],
    ["npm test 'x", "an unterminated ' quote"],
    ['npm test "x', 'an unterminated " quote'],
    ["npm test \\", "a trailing backslash"],
    ["npm test \u0000", "a control character"],
    ["   ", "no command"],
  ])("names the shell feature in %j", (command, feature) => {
    expect(parseShellCommand(command)).toEqual({ kind: "complex", feature });
  });

  it("quotes words so /bin/sh hands them over untouched", () => {
    const words = ["printf", "%s|", "$(touch x)", "it's", "`id`", "*", "a b", ""];
    const output = execFileSync("/bin/sh", ["-c", quoteShellWords(words)], { encoding: "utf8" });
    expect(output).toBe("$(touch x)|it's|`id`|*|a b||");
  });
});
