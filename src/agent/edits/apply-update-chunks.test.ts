import { describe, expect, it } from "vitest";
import { applyUpdateChunks } from "./apply-update-chunks.ts";
import { EditError } from "./edit-error.ts";
import { parsePatch } from "./parse-patch.ts";

/** Parses one Update File body and applies it to `text`. */
function update(text: string, body: string[]) {
  const parsed = parsePatch(
    ["*** Begin Patch", "*** Update File: f.ts", ...body, "*** End Patch"].join("\n"),
  );
  const operation = parsed.operations[0];
  if (operation?.type !== "update-file") throw new Error("expected an update");
  return applyUpdateChunks(text, operation.chunks, "f.ts");
}

function editErrorOf(run: () => unknown): EditError {
  try {
    run();
  } catch (error) {
    if (error instanceof EditError) return error;
    throw error;
  }
  throw new Error("expected an EditError");
}

const twoFunctions = [
  "function a() {",
  "  const x = 1;",
  "  return x;",
  "}",
  "",
  "function b() {",
  "  const x = 1;",
  "  return x;",
  "}",
  "",
].join("\n");

describe("applyUpdateChunks", () => {
  it("replaces lines found by context", () => {
    const result = update("one\ntwo\nthree\n", ["@@", " one", "-two", "+2", " three"]);
    expect(result).toEqual({ text: "one\n2\nthree\n", rungs: ["exact"] });
  });

  it("applies several hunks in order, each searching after the previous one", () => {
    const result = update("a\nb\nc\nd\ne\n", ["@@", "-b", "+B", "@@", "-d", "+D"]);
    expect(result.text).toBe("a\nB\nc\nD\ne\n");
  });

  it("uses an @@ anchor to pick the occurrence after it", () => {
    const result = update(twoFunctions, [
      "@@ function b() {",
      "   const x = 1;",
      "-  return x;",
      "+  return x + 1;",
    ]);
    const expected = twoFunctions.split("\n");
    expected[7] = "  return x + 1;";
    expect(result.text).toBe(expected.join("\n"));
  });

  it("follows nested @@ anchors one inside the other", () => {
    const text = [
      "class A {",
      "  run() {",
      "    go();",
      "  }",
      "}",
      "class B {",
      "  walk() {",
      "    go();",
      "  }",
      "  run() {",
      "    go();",
      "  }",
      "}",
      "",
    ].join("\n");
    const result = update(text, ["@@ class B {", "@@   run() {", "-    go();", "+    stop();"]);
    expect(result.text.split("\n")[10]).toBe("    stop();");
    expect(result.text.match(/stop/g)).toHaveLength(1);
  });

  it("refuses an unanchored hunk whose lines occur more than once", () => {
    const error = editErrorOf(() =>
      update(twoFunctions, ["@@", "   const x = 1;", "-  return x;", "+  return 0;"]),
    );
    expect(error.editCode).toBe("ambiguous_match");
    expect(error.message).toContain("match 2 places (lines 2, 7)");
  });

  it("reports a missing anchor and a missing hunk with the nearest region", () => {
    const anchorError = editErrorOf(() =>
      update(twoFunctions, ["@@ function c() {", "-  return x;", "+  y"]),
    );
    expect(anchorError.editCode).toBe("no_match");
    expect(anchorError.message).toContain("the @@ line 'function c() {' was not found");
    const hunkError = editErrorOf(() =>
      update(twoFunctions, ["@@ function b() {", "-  return y;", "+  return z;"]),
    );
    expect(hunkError.editCode).toBe("no_match");
    expect(hunkError.message).toContain("after line 6");
    expect(hunkError.message).toMatch(/closest lines are \d+-\d+/);
  });

  it("anchors End of File hunks to the last lines", () => {
    const text = "x\nend\nx\nend\n";
    const result = update(text, ["@@", " x", "-end", "+END", "*** End of File"]);
    expect(result.text).toBe("x\nend\nx\nEND\n");
  });

  it("appends a pure addition at the end of the file without an anchor, after the anchor with one", () => {
    expect(update("a\nb\n", ["@@", "+c"]).text).toBe("a\nb\nc\n");
    expect(update("a\nb\n", ["@@ a", "+inserted"]).text).toBe("a\ninserted\nb\n");
  });

  it("keeps the file's own context lines when the match was fuzzy", () => {
    const text = "say(\u201Chi\u201D);   \nold();\n";
    const result = update(text, ["@@", ' say("hi");', "-old();", "+fresh();"]);
    expect(result.rungs).toEqual(["unicode"]);
    expect(result.text).toBe("say(\u201Chi\u201D);   \nfresh();\n");
  });

  it("re-indents added lines when the hunk matched at another indentation", () => {
    const text = "if (a) {\n\t\tcall();\n\t\tdone();\n}\n";
    const result = update(text, ["@@", " call();", "+extra();", " done();"]);
    expect(result.rungs).toEqual(["whitespace"]);
    expect(result.text).toBe("if (a) {\n\t\tcall();\n\t\textra();\n\t\tdone();\n}\n");
  });

  it("retries without a trailing blank context line", () => {
    const result = update("a\nb", ["@@", "-b", "+c", ""]);
    expect(result.text).toBe("a\nc\n");
  });

  it("deletes lines, leaving an empty file when everything goes", () => {
    expect(update("only\n", ["@@", "-only"]).text).toBe("");
  });
});
