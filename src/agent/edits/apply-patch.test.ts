import { existsSync, readdirSync, readFileSync, statSync, chmodSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTempWorkspace,
  type TempWorkspace,
} from "../../../test/agent/edits/temp-workspace.ts";
import { applyPatch } from "./apply-patch.ts";
import { EditError } from "./edit-error.ts";

let workspace: TempWorkspace;

beforeEach(() => {
  workspace = createTempWorkspace();
});

afterEach(() => {
  workspace.remove();
});

function patch(...body: string[]): string {
  return ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
}

function run(patchText: string) {
  return applyPatch({
    workspaceRoot: workspace.root,
    patchText,
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

describe("applyPatch on disk", () => {
  it("adds, deletes, updates and moves files in one patch, with diffs and stats", async () => {
    workspace.writeAndRead("src/keep.ts", "const a = 1;\nconst b = 2;\n");
    workspace.writeAndRead("src/old.ts", "export const name = 'old';\n");
    workspace.write("src/gone.ts", "bye\n");
    const result = await run(
      patch(
        "*** Add File: src/new/added.ts",
        "+export const added = true;",
        "*** Delete File: src/gone.ts",
        "*** Update File: src/keep.ts",
        "@@",
        " const a = 1;",
        "-const b = 2;",
        "+const b = 3;",
        "*** Update File: src/old.ts",
        "*** Move to: src/renamed.ts",
        "@@",
        "-export const name = 'old';",
        "+export const name = 'renamed';",
      ),
    );
    expect(workspace.read("src/new/added.ts")).toBe("export const added = true;\n");
    expect(existsSync(path.join(workspace.root, "src/gone.ts"))).toBe(false);
    expect(workspace.read("src/keep.ts")).toBe("const a = 1;\nconst b = 3;\n");
    expect(existsSync(path.join(workspace.root, "src/old.ts"))).toBe(false);
    expect(workspace.read("src/renamed.ts")).toBe("export const name = 'renamed';\n");
    expect(result.files.map((file) => [file.kind, file.path, file.movedFrom])).toEqual([
      ["add", "src/new/added.ts", undefined],
      ["delete", "src/gone.ts", undefined],
      ["update", "src/keep.ts", undefined],
      ["move", "src/renamed.ts", "src/old.ts"],
    ]);
    const keep = result.files[2];
    expect(keep?.diff).toBe(
      "--- a/src/keep.ts\n+++ b/src/keep.ts\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n",
    );
    expect(result.linesAdded).toBe(3);
    expect(result.linesRemoved).toBe(3);
    expect(workspace.undoStack.size).toBe(1);
  });

  it("preserves CRLF line endings and a missing final newline", async () => {
    workspace.writeAndRead("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    workspace.writeAndRead("no-eol.txt", "one\ntwo");
    await run(
      patch(
        "*** Update File: crlf.txt",
        "@@",
        " one",
        "-two",
        "+2",
        "+2.5",
        "*** Update File: no-eol.txt",
        "@@",
        "-two",
        "+2",
        "*** End of File",
      ),
    );
    expect(readFileSync(path.join(workspace.root, "crlf.txt"), "utf8")).toBe(
      "one\r\n2\r\n2.5\r\nthree\r\n",
    );
    expect(workspace.read("no-eol.txt")).toBe("one\n2");
  });

  it("keeps the file mode", async () => {
    const script = workspace.writeAndRead("run.sh", "#!/bin/sh\necho hi\n");
    chmodSync(script, 0o750);
    await run(patch("*** Update File: run.sh", "@@", "-echo hi", "+echo bye"));
    expect(statSync(script).mode & 0o777).toBe(0o750);
  });

  it("touches no file when a later hunk fails", async () => {
    workspace.writeAndRead("a.txt", "a1\na2\n");
    workspace.writeAndRead("b.txt", "b1\nb2\n");
    const error = await editErrorOf(
      run(
        patch(
          "*** Add File: c.txt",
          "+c",
          "*** Update File: a.txt",
          "@@",
          "-a1",
          "+A1",
          "*** Update File: b.txt",
          "@@",
          "-missing",
          "+x",
        ),
      ),
    );
    expect(error.editCode).toBe("no_match");
    expect(error.message).toContain("hunk 1 (patch line 9) for b.txt");
    expect(workspace.read("a.txt")).toBe("a1\na2\n");
    expect(existsSync(path.join(workspace.root, "c.txt"))).toBe(false);
    expect(readdirSync(workspace.root).sort()).toEqual(["a.txt", "b.txt"]);
    expect(workspace.undoStack.size).toBe(0);
  });

  it("refuses a file that changed on disk since it was read", async () => {
    workspace.writeAndRead("a.txt", "a\n");
    workspace.write("a.txt", "changed\n");
    const error = await editErrorOf(run(patch("*** Update File: a.txt", "@@", "-changed", "+x")));
    expect(error.editCode).toBe("stale_file");
    expect(error.message).toBe(
      "a.txt changed on disk since you read it; read it again before editing",
    );
    expect(workspace.read("a.txt")).toBe("changed\n");
  });

  it("allows an unread file only when every hunk matches exactly", async () => {
    workspace.write("unread.txt", "value  =  1\nnext\n");
    const loose = await editErrorOf(
      run(patch("*** Update File: unread.txt", "@@", "-value = 1", "+value = 2")),
    );
    expect(loose.editCode).toBe("file_not_read");
    await run(patch("*** Update File: unread.txt", "@@", "-value  =  1", "+value = 2"));
    expect(workspace.read("unread.txt")).toBe("value = 2\nnext\n");
    // Once written by an edit, the file counts as known: a loose match is now fine.
    await run(patch("*** Update File: unread.txt", "@@", "-value =  2", "+value = 3"));
    expect(workspace.read("unread.txt")).toBe("value = 3\nnext\n");
  });

  it("refuses to add over an existing file, move onto one, or touch a missing one", async () => {
    workspace.writeAndRead("a.txt", "a\n");
    workspace.writeAndRead("b.txt", "b\n");
    expect((await editErrorOf(run(patch("*** Add File: a.txt", "+x")))).editCode).toBe(
      "file_exists",
    );
    const move = await editErrorOf(
      run(patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+A")),
    );
    expect(move.editCode).toBe("file_exists");
    expect((await editErrorOf(run(patch("*** Delete File: nope.txt")))).editCode).toBe(
      "file_not_found",
    );
    const update = await editErrorOf(run(patch("*** Update File: nope.txt", "@@", "+x")));
    expect(update.editCode).toBe("file_not_found");
    expect(update.message).toContain("use '*** Add File:' to create it");
    expect(workspace.read("b.txt")).toBe("b\n");
  });

  it("refuses paths outside the workspace as a tool error", async () => {
    const error = await editErrorOf(run(patch("*** Add File: ../escape.txt", "+x")));
    expect(error.editCode).toBe("outside_workspace");
    expect(existsSync(path.join(workspace.root, "..", "escape.txt"))).toBe(false);
  });

  it("reports malformed patches and empty patches as patch_syntax", async () => {
    expect((await editErrorOf(run("*** Begin Patch\n*** End Patch"))).editCode).toBe(
      "patch_syntax",
    );
    const error = await editErrorOf(run(patch("*** Update File: a.txt", "@@", "nonsense")));
    expect(error.editCode).toBe("patch_syntax");
    expect(error.patchLine).toBe(4);
  });

  it("rolls back files already renamed when a later rename fails", async () => {
    workspace.writeAndRead("a.txt", "a\n");
    workspace.writeAndRead("b.txt", "b\n");
    let renames = 0;
    await expect(
      applyPatch({
        workspaceRoot: workspace.root,
        patchText: patch(
          "*** Update File: a.txt",
          "@@",
          "-a",
          "+A",
          "*** Update File: b.txt",
          "@@",
          "-b",
          "+B",
        ),
        ledger: workspace.ledger,
        undoStack: workspace.undoStack,
        beforeRename: () => {
          renames += 1;
          if (renames === 2) throw new Error("disk full");
        },
      }),
    ).rejects.toThrow("disk full");
    expect(workspace.read("a.txt")).toBe("a\n");
    expect(workspace.read("b.txt")).toBe("b\n");
    expect(readdirSync(workspace.root).sort()).toEqual(["a.txt", "b.txt"]);
  });
});
