// git config parsing for core.hooksPath: the spellings git itself accepts must all be found, and
// look-alikes in other sections must not be; includes are read with their conditions as written.
import { describe, expect, it } from "vitest";
import { gitConfigEntries } from "./git-config-values.ts";

/** Every core.hooksPath value in file order, as repository-hooks.ts reads them. */
const hooksPath = (text: string) =>
  gitConfigEntries(text)
    .filter(
      (entry) =>
        entry.section === "core" && entry.subsection === undefined && entry.key === "hookspath",
    )
    .map((entry) => entry.value);

describe("gitConfigEntries", () => {
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

describe("gitConfigEntries", () => {
  it("keeps each subsection as written, its escapes applied, for includes to be found", () => {
    const text = [
      "[include]",
      "\tpath = team.gitconfig",
      '[includeIf "gitdir:~/Work/"]',
      "\tPath = work.gitconfig",
      '[includeIf "onbranch:fix/\\"quoted\\""] path = "a b.inc"',
      "[Remote.Origin]",
      "\turl = old-style",
    ].join("\n");
    expect(gitConfigEntries(text)).toEqual([
      { section: "include", subsection: undefined, key: "path", value: "team.gitconfig" },
      { section: "includeif", subsection: "gitdir:~/Work/", key: "path", value: "work.gitconfig" },
      { section: "includeif", subsection: 'onbranch:fix/"quoted"', key: "path", value: "a b.inc" },
      { section: "remote.origin", subsection: undefined, key: "url", value: "old-style" },
    ]);
  });

  it("stops at a malformed section header, as git does", () => {
    expect(gitConfigEntries("[core]\nbare = true\n[broken\nhooksPath = after\n")).toEqual([
      { section: "core", subsection: undefined, key: "bare", value: "true" },
    ]);
  });
});
