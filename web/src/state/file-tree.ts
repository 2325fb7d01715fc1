// The workspace file list (`workspace/files`, gitignore applied by the server) as a folder tree,
// with folders first and the open/closed state kept by path.

export interface FileTreeNode {
  name: string;
  path: string;
  kind: "folder" | "file";
  children: FileTreeNode[];
}

export function buildFileTree(paths: readonly string[]): FileTreeNode[] {
  const root: FileTreeNode = { name: "", path: "", kind: "folder", children: [] };
  const folders = new Map<string, FileTreeNode>([["", root]]);
  for (const filePath of paths) {
    const parts = filePath.split("/").filter((part) => part !== "");
    let parent = root;
    for (let index = 0; index < parts.length; index += 1) {
      const name = parts[index] ?? "";
      const nodePath = parts.slice(0, index + 1).join("/");
      const isFile = index === parts.length - 1;
      if (isFile) {
        parent.children.push({ name, path: nodePath, kind: "file", children: [] });
        continue;
      }
      let folder = folders.get(nodePath);
      if (folder === undefined) {
        folder = { name, path: nodePath, kind: "folder", children: [] };
        folders.set(nodePath, folder);
        parent.children.push(folder);
      }
      parent = folder;
    }
  }
  sortTree(root);
  return root.children;
}

/** The rows a tree shows with these folders open, in order, with their depth. */
export function visibleRows(
  nodes: readonly FileTreeNode[],
  openFolders: ReadonlySet<string>,
  depth = 0,
): { node: FileTreeNode; depth: number }[] {
  const rows: { node: FileTreeNode; depth: number }[] = [];
  for (const node of nodes) {
    rows.push({ node, depth });
    if (node.kind === "folder" && openFolders.has(node.path)) {
      rows.push(...visibleRows(node.children, openFolders, depth + 1));
    }
  }
  return rows;
}

function sortTree(node: FileTreeNode): void {
  node.children.sort((left, right) =>
    left.kind === right.kind
      ? left.name.localeCompare(right.name)
      : left.kind === "folder"
        ? -1
        : 1,
  );
  for (const child of node.children) sortTree(child);
}
