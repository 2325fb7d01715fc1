import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTempWorkspace,
  type TempWorkspace,
} from "../../../test/agent/edits/temp-workspace.ts";
import { applySearchReplace } from "./apply-search-replace.ts";
import { EditError } from "./edit-error.ts";

let workspace: TempWorkspace;

beforeEach(() => {
  workspace = createTempWorkspace();
});

afterEach(() => {
  workspace.remove();
});

function edit(filePath: string, oldText: string, newText: string, replaceAll = false) {
  return applySearchReplace({
    workspaceRoot: workspace.root,
    path: filePath,
    oldText,
    newText,
    replaceAll,
    ledger: workspace.ledger,
    undoStack: workspace.undoStack,
  });
}

async function editErrorOf(promise: Promise<unknown>): Promise<EditError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EditError) return error;
    throw error;
  }
  throw new Error("expected an EditError");
}

describe("applySearchReplace on disk", () => {
  it("replaces, reports the rung, the diff and the stats", async () => {
    workspace.writeAndRead("src/a.ts", "const a = 1;\nconst b = 2;\n");
    const result = await edit("src/a.ts", "const b = 2;", "const b = 3;\nconst c = 4;");
    expect(workspace.read("src/a.ts")).toBe("const a = 1;\nconst b = 3;\nconst c = 4;\n");
    expect(result).toMatchObject({
      path: "src/a.ts",
      kind: "update",
      rung: "exact",
      replacements: 1,
      matchedLines: [2],
      linesAdded: 2,
      linesRemoved: 1,
    });
    expect(result.diff).toContain("-const b = 2;\n+const b = 3;\n+const c = 4;\n");
    expect(workspace.undoStack.peek()?.id).toBe(result.undoEntryId);
  });

  it("edits a CRLF file with LF oldText and keeps CRLF", async () => {
    workspace.writeAndRead("win.txt", "alpha\r\nbeta\r\ngamma\r\n");
    await edit("win.txt", "alpha\nbeta\n", "alpha\nBETA\n");
    expect(readFileSync(path.join(workspace.root, "win.txt"), "utf8")).toBe(
      "alpha\r\nBETA\r\ngamma\r\n",
    );
  });

  it("keeps a missing final newline even when newText ends with one", async () => {
    workspace.writeAndRead("tail.txt", "one\ntwo");
    await edit("tail.txt", "two", "three\n");
    expect(workspace.read("tail.txt")).toBe("one\nthree");
  });

  it("refuses ambiguity unless replaceAll, and reports every line", async () => {
    workspace.writeAndRead("dup.ts", "a();\nb();\na();\n");
    const error = await editErrorOf(edit("dup.ts", "a();", "c();"));
    expect(error.editCode).toBe("ambiguous_match");
    expect(error.message).toContain("(lines 1, 3)");
    const result = await edit("dup.ts", "a();", "c();", true);
    expect(result.replacements).toBe(2);
    expect(workspace.read("dup.ts")).toBe("c();\nb();\nc();\n");
  });

  it("refuses a stale file and writes nothing", async () => {
    workspace.writeAndRead("s.ts", "x\n");
    workspace.write("s.ts", "y\n");
    const error = await editErrorOf(edit("s.ts", "y", "z"));
    expect(error.editCode).toBe("stale_file");
    expect(error.toJSON()).toMatchObject({
      type: "error",
      code: "invalid_request",
      editCode: "stale_file",
      path: "s.ts",
    });
    expect(workspace.read("s.ts")).toBe("y\n");
  });

  it("requires an exact match on a file never read in this session", async () => {
    workspace.write("unread.ts", "if (a)  {\n  go();\n}\n");
    expect((await editErrorOf(edit("unread.ts", "if (a) {", "if (b) {"))).editCode).toBe(
      "file_not_read",
    );
    await edit("unread.ts", "if (a)  {", "if (b) {");
    expect(workspace.read("unread.ts")).toBe("if (b) {\n  go();\n}\n");
  });

  it("creates a file from an empty oldText, but never over an existing one", async () => {
    const result = await edit("new/file.md", "", "# Title\n");
    expect(result.kind).toBe("add");
    expect(workspace.read("new/file.md")).toBe("# Title\n");
    expect((await editErrorOf(edit("new/file.md", "", "again"))).editCode).toBe("file_exists");
    expect((await editErrorOf(edit("missing.md", "x", "y"))).editCode).toBe("file_not_found");
  });

  it("refuses no-op edits, binary files and paths outside the workspace", async () => {
    workspace.writeAndRead("same.ts", "a\n");
    expect((await editErrorOf(edit("same.ts", "a", "a"))).editCode).toBe("no_change");
    workspace.write("blob.bin", Buffer.from([1, 0, 2]));
    expect((await editErrorOf(edit("blob.bin", "a", "b"))).editCode).toBe("not_a_text_file");
    expect((await editErrorOf(edit("/etc/hostname", "a", "b"))).editCode).toBe("outside_workspace");
    expect(existsSync(path.join(workspace.root, "etc"))).toBe(false);
  });
});
