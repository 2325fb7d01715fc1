// Which commands the user's own words approve: exactly one plain command they wrote, never one
// they said not to run, never a longer or chained one.
import { describe, expect, it } from "vitest";
import { judgeCommandRequest, userAskedFor } from "./command-approval.ts";

describe("userAskedFor", () => {
  it("approves the exact command the user wrote, in prose or code", () => {
    expect(userAskedFor("npm test", "run npm test please")).toBe(true);
    expect(userAskedFor("npm test", "Please run `npm test`.")).toBe(true);
    expect(userAskedFor("npm test", "please run npm test.")).toBe(true);
    expect(userAskedFor("ls -a", 'try "ls -a"')).toBe(true);
    expect(userAskedFor("git commit -m 'fix bug'", 'commit: `git commit -m "fix bug"`')).toBe(true);
    expect(userAskedFor("npm test", "Fix it.\n```sh\n$ npm test\n```")).toBe(true);
    expect(userAskedFor("npm   test", "run npm test")).toBe(true);
  });

  it("refuses anything longer, shorter in meaning, or different from what was written", () => {
    expect(userAskedFor("npm test -- --run", "run npm test please")).toBe(false);
    expect(userAskedFor("npm install evil", "run npm install")).toBe(false);
    expect(userAskedFor("rm -rf build", "clean things up")).toBe(false);
    expect(userAskedFor("rm", "confirm the form works")).toBe(false);
    expect(userAskedFor("npm test $(touch /tmp/x)", "please run npm test $(touch /tmp/x)")).toBe(
      false,
    );
    expect(userAskedFor("npm test && touch x", "run `npm test && touch x`")).toBe(false);
  });

  it.each([
    "Never run `touch x`.",
    "never run touch x",
    "Don't run touch x",
    "don’t run `touch x` please",
    "Do not run touch x, it breaks things",
    "Please do NOT ever run `touch x`",
    "`touch x` must not be run",
    "touch x should never run",
    "Run the tests but never touch x",
    "Run `touch x`. Actually no, never run `touch x`.",
    "Never run the following:\n```sh\ntouch x\n```",
    "Do not run this:\ntouch x",
  ])("refuses a command the user said not to run: %j", (userText) => {
    expect(judgeCommandRequest("touch x", userText)).toEqual({
      asked: false,
      reason: "the user said not to run it",
    });
  });

  it("keeps a request next to an unrelated negation", () => {
    expect(userAskedFor("npm test", "Don't edit anything. Run npm test")).toBe(true);
    expect(userAskedFor("npm test", "Don't run the linter, but do run `npm test`")).toBe(true);
    expect(userAskedFor("npm test", "run `npm test`, and no edits")).toBe(true);
    expect(userAskedFor("npm test", "run `git log --no-merges` then `npm test`")).toBe(true);
    expect(userAskedFor("npm test", "Don't forget to run npm test.")).toBe(true);
  });

  it("names why a command needs approval", () => {
    expect(judgeCommandRequest("npm test `touch x`", "run npm test")).toEqual({
      asked: false,
      reason:
        "it uses command substitution `…`, so only explicit approval of the whole command can run it",
    });
    expect(judgeCommandRequest("npm test", "fix the bug")).toMatchObject({ asked: false });
    expect(judgeCommandRequest("npm test", "run npm test")).toEqual({
      asked: true,
      shellCommand: "'npm' 'test'",
    });
  });
});
