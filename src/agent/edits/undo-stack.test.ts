import { existsSync, readFileSync, statSync, chmodSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTempWorkspace,
  type TempWorkspace,
} from "../../../test/agent/edits/temp-workspace.ts";
import { applyPatch } from "./apply-patch.ts";
import { applySearchReplace } from "./apply-search-replace.ts";
import { EditError } from "./edit-error.ts";
import { UndoStack } from "./undo-stack.ts";

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

describe("UndoStack", () => {
  it("undoes a patch with an add, a delete, an update and a move in one step", async () => {
    workspace.writeAndRead("keep.txt", "k1\r\nk2\r\n");
    const script = workspace.writeAndRead("old.sh", "echo old\n");
    chmodSync(script, 0o755);
    workspace.write("gone.bin", Buffer.from([0, 1, 2, 255]));
    await applyPatch({
      workspaceRoot: workspace.root,
      patchText: patch(
        "*** Add File: added.txt",
        "+new",
        "*** Delete File: gone.bin",
        "*** Update File: keep.txt",
        "@@",
        "-k2",
        "+K2",
        "*** Update File: old.sh",
        "*** Move to: bin/new.sh",
        "@@",
        "-echo old",
        "+echo new",
      ),
      ledger: workspace.ledger,
      undoStack: workspace.undoStack,
    });
    const result = await workspace.undoStack.undo({
      workspaceRoot: workspace.root,
      ledger: workspace.ledger,
    });
    expect(existsSync(path.join(workspace.root, "added.txt"))).toBe(false);
    expect(readFileSync(path.join(workspace.root, "gone.bin"))).toEqual(
      Buffer.from([0, 1, 2, 255]),
    );
    expect(readFileSync(path.join(workspace.root, "keep.txt"), "utf8")).toBe("k1\r\nk2\r\n");
    expect(workspace.read("old.sh")).toBe("echo old\n");
    expect(statSync(script).mode & 0o777).toBe(0o755);
    expect(existsSync(path.join(workspace.root, "bin/new.sh"))).toBe(false);
    expect(result.files.map((file) => [file.path, file.action]).sort()).toEqual([
      ["added.txt", "deleted"],
      ["bin/new.sh", "deleted"],
      ["gone.bin", "restored"],
      ["keep.txt", "restored"],
      ["old.sh", "restored"],
    ]);
    expect(workspace.undoStack.size).toBe(0);
    // The restored content counts as read, so editing can go on without a stale error.
    await applySearchReplace({
      workspaceRoot: workspace.root,
      path: "keep.txt",
      oldText: "k1",
      newText: "K1",
      ledger: workspace.ledger,
      undoStack: workspace.undoStack,
    });
  });

  it("undoes edits last-first", async () => {
    workspace.writeAndRead("a.txt", "v1\n");
    const edit = (oldText: string, newText: string) =>
      applySearchReplace({
        workspaceRoot: workspace.root,
        path: "a.txt",
        oldText,
        newText,
        ledger: workspace.ledger,
        undoStack: workspace.undoStack,
      });
    await edit("v1", "v2");
    await edit("v2", "v3");
    await workspace.undoStack.undo({ workspaceRoot: workspace.root });
    expect(workspace.read("a.txt")).toBe("v2\n");
    await workspace.undoStack.undo({ workspaceRoot: workspace.root });
    expect(workspace.read("a.txt")).toBe("v1\n");
    await expect(
      workspace.undoStack.undo({ workspaceRoot: workspace.root }),
    ).rejects.toBeInstanceOf(EditError);
  });

  it("refuses to undo over later changes unless forced", async () => {
    workspace.writeAndRead("a.txt", "v1\n");
    await applySearchReplace({
      workspaceRoot: workspace.root,
      path: "a.txt",
      oldText: "v1",
      newText: "v2",
      ledger: workspace.ledger,
      undoStack: workspace.undoStack,
    });
    workspace.write("a.txt", "someone else\n");
    const refused = workspace.undoStack.undo({ workspaceRoot: workspace.root });
    await expect(refused).rejects.toMatchObject({ editCode: "stale_file" });
    expect(workspace.read("a.txt")).toBe("someone else\n");
    expect(workspace.undoStack.size).toBe(1);
    await workspace.undoStack.undo({ workspaceRoot: workspace.root, force: true });
    expect(workspace.read("a.txt")).toBe("v1\n");
  });

  it("survives a JSON round trip and undoes from the restored stack", async () => {
    workspace.writeAndRead("a.txt", "before\n");
    await applySearchReplace({
      workspaceRoot: workspace.root,
      path: "a.txt",
      oldText: "before",
      newText: "after",
      ledger: workspace.ledger,
      undoStack: workspace.undoStack,
    });
    const json = JSON.parse(JSON.stringify(workspace.undoStack)) as unknown;
    const restored = UndoStack.fromJSON(json);
    expect(restored.toJSON()).toEqual(workspace.undoStack.toJSON());
    await restored.undo({ workspaceRoot: workspace.root });
    expect(workspace.read("a.txt")).toBe("before\n");
    expect(() => UndoStack.fromJSON({ version: 2, entries: [] })).toThrow(/malformed/);
  });

  it("runs a session's edits one at a time, in call order", async () => {
    workspace.writeAndRead("a.txt", "v1\n");
    const edit = (oldText: string, newText: string) =>
      applySearchReplace({
        workspaceRoot: workspace.root,
        path: "a.txt",
        oldText,
        newText,
        ledger: workspace.ledger,
        undoStack: workspace.undoStack,
      });
    // Started together: the second one only finds "v2" if it waits for the first to finish.
    await Promise.all([
      edit("v1", "v2"),
      edit("v2", "v3"),
      workspace.undoStack.undo({ workspaceRoot: workspace.root, ledger: workspace.ledger }),
    ]);
    expect(workspace.read("a.txt")).toBe("v2\n");
    expect(workspace.undoStack.size).toBe(1);
  });

  it("keeps at most maxEntries entries", () => {
    const stack = new UndoStack({ maxEntries: 2 });
    for (const id of ["1", "2", "3"]) {
      stack.push({ id, tool: "edit", createdAt: new Date(0).toISOString(), files: [] });
    }
    expect(stack.toJSON().entries.map((entry) => entry.id)).toEqual(["2", "3"]);
  });
});
