import { describe, expect, it } from "vitest";
import { buildFileTree, visibleRows } from "./file-tree.ts";

describe("file tree", () => {
  it("nests paths into folders, folders first, and shows open folders' children", () => {
    const tree = buildFileTree(["README.md", "src/b.ts", "src/a/x.ts", "package.json"]);
    expect(tree.map((node) => node.name)).toEqual(["src", "package.json", "README.md"]);
    const closed = visibleRows(tree, new Set());
    expect(closed.map((row) => row.node.path)).toEqual(["src", "package.json", "README.md"]);
    const open = visibleRows(tree, new Set(["src", "src/a"]));
    expect(open.map((row) => `${row.depth}:${row.node.path}`)).toEqual([
      "0:src",
      "1:src/a",
      "2:src/a/x.ts",
      "1:src/b.ts",
      "0:package.json",
      "0:README.md",
    ]);
  });
});
