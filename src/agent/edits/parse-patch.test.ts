import { describe, expect, it } from "vitest";
import { EditError } from "./edit-error.ts";
import { parsePatch } from "./parse-patch.ts";

function syntaxErrorOf(patchText: string): EditError {
  try {
    parsePatch(patchText);
  } catch (error) {
    if (error instanceof EditError) return error;
    throw error;
  }
  throw new Error("expected a patch_syntax error");
}

describe("parsePatch", () => {
  it("parses add, delete and update-with-move operations", () => {
    const parsed = parsePatch(
      [
        "*** Begin Patch",
        "*** Add File: path/add.py",
        "+abc",
        "+def",
        "*** Delete File: path/delete.py",
        "*** Update File: path/update.py",
        "*** Move to: path/update2.py",
        "@@ def f():",
        "-    pass",
        "+    return 123",
        "*** End Patch",
      ].join("\n"),
    );
    expect(parsed.operations).toEqual([
      { type: "add-file", path: "path/add.py", content: "abc\ndef\n", patchLine: 2 },
      { type: "delete-file", path: "path/delete.py", patchLine: 5 },
      {
        type: "update-file",
        path: "path/update.py",
        moveTo: "path/update2.py",
        patchLine: 6,
        chunks: [
          {
            anchors: ["def f():"],
            lines: [
              { kind: "remove", text: "    pass" },
              { kind: "add", text: "    return 123" },
            ],
            endOfFile: false,
            patchLine: 8,
          },
        ],
      },
    ]);
  });

  it("accepts a first chunk without @@, nested @@ anchors, blank context lines and End of File", () => {
    const parsed = parsePatch(
      [
        "*** Begin Patch",
        "*** Update File: a.ts",
        " import foo",
        "+import bar",
        "@@ class Outer",
        "@@   method()",
        " keep",
        "",
        "-old",
        "+new",
        "*** End of File",
        "*** End Patch",
      ].join("\n"),
    );
    const operation = parsed.operations[0];
    expect(operation?.type).toBe("update-file");
    if (operation?.type !== "update-file") return;
    expect(operation.chunks).toEqual([
      {
        anchors: [],
        lines: [
          { kind: "context", text: "import foo" },
          { kind: "add", text: "import bar" },
        ],
        endOfFile: false,
        patchLine: 3,
      },
      {
        anchors: ["class Outer", "  method()"],
        lines: [
          { kind: "context", text: "keep" },
          { kind: "context", text: "" },
          { kind: "remove", text: "old" },
          { kind: "add", text: "new" },
        ],
        endOfFile: true,
        patchLine: 5,
      },
    ]);
  });

  it("tolerates padding around markers, CRLF, a heredoc wrapper and unified-diff @@ headers", () => {
    const parsed = parsePatch(
      "<<'EOF'\r\n  *** Begin Patch \r\n*** Update File: a.ts\r\n@@ -10,3 +10,3 @@ function go() {\r\n-a\r\n+b\r\n *** End Patch\r\nEOF\r\n",
    );
    expect(parsed.operations).toEqual([
      {
        type: "update-file",
        path: "a.ts",
        moveTo: undefined,
        patchLine: 3,
        chunks: [
          {
            anchors: ["function go() {"],
            lines: [
              { kind: "remove", text: "a" },
              { kind: "add", text: "b" },
            ],
            endOfFile: false,
            patchLine: 4,
          },
        ],
      },
    ]);
  });

  it("returns no operations for an empty patch body", () => {
    expect(parsePatch("*** Begin Patch\n*** End Patch\n").operations).toEqual([]);
  });
});

describe("parsePatch malformed input", () => {
  const cases: Array<{ name: string; patch: string[]; line: number; message: string }> = [
    {
      name: "no begin marker",
      patch: ["bad"],
      line: 1,
      message: "the first line of the patch must be '*** Begin Patch'",
    },
    {
      name: "no end marker",
      patch: ["*** Begin Patch", "*** Delete File: a"],
      line: 2,
      message: "the last line of the patch must be '*** End Patch'",
    },
    { name: "empty text", patch: ["", "  "], line: 1, message: "the patch is empty" },
    {
      name: "unknown header",
      patch: ["*** Begin Patch", "*** Frobnicate File: a", "*** End Patch"],
      line: 2,
      message: "'*** Frobnicate File: a' is not a valid hunk header",
    },
    {
      name: "update without hunks",
      patch: ["*** Begin Patch", "*** Update File: a.ts", "*** End Patch"],
      line: 2,
      message: "the update for 'a.ts' has no hunks",
    },
    {
      name: "bad line inside a hunk",
      patch: ["*** Begin Patch", "*** Update File: a.ts", "@@", "oops", "*** End Patch"],
      line: 4,
      message: "unexpected line in update hunk: 'oops'",
    },
    {
      name: "@@ with no lines",
      patch: ["*** Begin Patch", "*** Update File: a.ts", "@@ fn()", "*** End Patch"],
      line: 3,
      message: "the hunk does not contain any lines",
    },
    {
      name: "End of File right after @@",
      patch: ["*** Begin Patch", "*** Update File: a.ts", "@@", "*** End of File", "*** End Patch"],
      line: 4,
      message: "the hunk does not contain any lines",
    },
    {
      name: "add file without a path",
      patch: ["*** Begin Patch", "*** Add File:  ", "+x", "*** End Patch"],
      line: 2,
      message: "'*** Add File:' is not a valid hunk header",
    },
    {
      name: "stray line after an add",
      patch: ["*** Begin Patch", "*** Add File: a", "+x", "y", "*** End Patch"],
      line: 4,
      message: "'y' is not a valid hunk header",
    },
  ];

  for (const testCase of cases) {
    it(`names the line for: ${testCase.name}`, () => {
      const error = syntaxErrorOf(testCase.patch.join("\n"));
      expect(error.editCode).toBe("patch_syntax");
      expect(error.code).toBe("invalid_request");
      expect(error.patchLine).toBe(testCase.line);
      expect(error.message).toContain(
        `apply_patch syntax error at line ${testCase.line}: ${testCase.message}`,
      );
    });
  }

  it("starts a new file operation after an update's hunks", () => {
    const parsed = parsePatch(
      [
        "*** Begin Patch",
        "*** Update File: a.ts",
        "@@",
        "-a",
        "+b",
        "*** Update File: b.ts",
        "@@",
        "+x",
        "*** End Patch",
      ].join("\n"),
    );
    expect(parsed.operations.map((operation) => operation.type)).toEqual([
      "update-file",
      "update-file",
    ]);
  });
});
