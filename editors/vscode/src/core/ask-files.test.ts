import { describe, expect, it } from "vitest";
import { parseComposedMessage } from "../../../../web/src/state/attachments.ts";
import { mentionAt, questionWithFiles, withoutMention } from "./ask-files.ts";

describe("@file in Ask", () => {
  it("finds the mention ending at the cursor, only at a word's start", () => {
    expect(mentionAt("explain @src/ma", 15)).toEqual({ start: 8, query: "src/ma" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail me@example", 15)).toBeUndefined();
    expect(mentionAt("explain @src/main.ts now", 24)).toBeUndefined();
    // The cursor inside the word: the part before it is the query.
    expect(mentionAt("see @abc", 6)).toEqual({ start: 4, query: "a" });
  });

  it("takes the mention out of the text once a file is chosen", () => {
    const text = "explain @src/ma please";
    const mention = mentionAt(text, 15)!;
    expect(withoutMention(text, mention, 15)).toEqual({ text: "explain  please", caret: 8 });
  });

  it("lists the files as the browser app composes them, so its parser reads them back", () => {
    const question = questionWithFiles("What does this do?", ["src/a.ts", "lib/b.js", "src/a.ts"]);
    expect(question).toBe(
      "What does this do?\n\nFiles from the workspace to look at:\n- @src/a.ts\n- @lib/b.js",
    );
    expect(parseComposedMessage(question)).toEqual({
      text: "What does this do?",
      files: ["src/a.ts", "lib/b.js"],
      uploads: [],
    });
    expect(questionWithFiles("plain", [])).toBe("plain");
  });
});
