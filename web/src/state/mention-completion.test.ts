import { describe, expect, it } from "vitest";
import { acceptMention, mentionTarget } from "./mention-completion.ts";

describe("@ mentions", () => {
  it("finds the mention being typed at the cursor, and only there", () => {
    expect(mentionTarget("look at @src/a", 14)).toEqual({ start: 8, query: "src/a" });
    expect(mentionTarget("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionTarget("mail me@example.com", 19)).toBeUndefined();
    expect(mentionTarget("look at @src/a now", 18)).toBeUndefined();
  });

  it("replaces the mention with the picked path and a space, keeping what follows", () => {
    const text = "fix @gre please";
    const target = mentionTarget(text, 8);
    expect(target).toEqual({ start: 4, query: "gre" });
    if (target === undefined) return;
    expect(acceptMention(text, 8, target, "src/greet.ts")).toEqual({
      text: "fix @src/greet.ts please",
      cursor: 18,
    });
  });
});
