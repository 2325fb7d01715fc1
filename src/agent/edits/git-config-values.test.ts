// git config parsing for core.hooksPath: the spellings git itself accepts must all be found, and
// look-alikes in other sections must not be.
import { describe, expect, it } from "vitest";
import { gitConfigValues } from "./git-config-values.ts";

const hooksPath = (text: string) => gitConfigValues(text, "core", "hooksPath");

describe("gitConfigValues", () => {
  it("finds the key in any case, with or without spaces, quotes and comments", () => {
    expect(hooksPath("[core]\n\thooksPath = .githooks\n")).toEqual([".githooks"]);
    expect(hooksPath("[CORE]\nHOOKSPATH=.husky/_\n")).toEqual([".husky/_"]);
    expect(hooksPath('[core]\n  hookspath = "my hooks" ; why\n')).toEqual(["my hooks"]);
    expect(hooksPath("[core]\nhooksPath = hooks # the team's\n")).toEqual(["hooks"]);
    expect(hooksPath("[core] hooksPath = same-line\n")).toEqual(["same-line"]);
    expect(hooksPath('[core]\nhooksPath = "a\\\\b\\"c"\n')).toEqual(['a\\b"c']);
    expect(hooksPath("[core]\r\nhooksPath = crlf\r\n")).toEqual(["crlf"]);
  });

  it("joins continued lines and keeps every value in order", () => {
    expect(hooksPath("[core]\nhooksPath = .git\\\nhooks\n[core]\nhooksPath = second\n")).toEqual([
      ".githooks",
      "second",
    ]);
  });

  it("ignores other sections, subsections, comments and other keys", () => {
    const text = [
      "# [core] hooksPath = commented",
      "[core]",
      "\tbare = false",
      '[core "x"]',
      "\thooksPath = subsection",
      "[user]",
      "\thooksPath = user-section",
      "[core.hooksPath]",
      "\tvalue = old-style",
      '[includeIf "gitdir:~/"]',
      "\tpath = elsewhere",
    ].join("\n");
    expect(hooksPath(text)).toEqual([]);
  });
});
