// The workspace's files (gitignore applied by the server) as a tree; a checkbox attaches a file
// to the next message. A filter asks the server's fuzzy search.
import { useMemo, useState } from "preact/hooks";
import type { AppState, AppStore } from "../state/app-store.ts";
import { buildFileTree, visibleRows } from "../state/file-tree.ts";

export function FileTreeView({ store, state }: { store: AppStore; state: AppState }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const tree = useMemo(() => buildFileTree(state.files.paths), [state.files.paths]);
  const filtering = state.files.query !== "";
  // While filtering, every folder on the way to a match is open.
  const openFolders = filtering ? new Set(state.files.paths.flatMap(parentFolders)) : open;
  const rows = visibleRows(tree, openFolders);
  const toggleFolder = (path: string): void => {
    const next = new Set(open);
    if (next.has(path)) next.delete(path);
    else next.add(path);
    setOpen(next);
  };
  return (
    <section class="files" aria-label="Workspace files">
      <h2>Files</h2>
      <input
        id="file-filter"
        type="search"
        placeholder="filter files"
        aria-label="Filter workspace files"
        value={state.files.query}
        onInput={(event) => void store.loadFiles(event.currentTarget.value)}
      />
      {state.currentSessionId === undefined ? (
        <p class="empty">Open a session to see its files.</p>
      ) : null}
      <ul class="file-tree">
        {rows.map(({ node, depth }) => (
          <li key={node.path} style={{ paddingLeft: `${depth * 12}px` }}>
            {node.kind === "folder" ? (
              <button
                type="button"
                class="folder"
                aria-expanded={openFolders.has(node.path)}
                onClick={() => toggleFolder(node.path)}
              >
                {openFolders.has(node.path) ? "▾" : "▸"} {node.name}/
              </button>
            ) : (
              <label class="file">
                <input
                  type="checkbox"
                  checked={state.attachedFiles.includes(node.path)}
                  onChange={() => store.toggleAttachedFile(node.path)}
                  data-path={node.path}
                />
                {node.name}
              </label>
            )}
          </li>
        ))}
      </ul>
      {state.files.truncated ? (
        <p class="empty">More files than shown: filter to find one.</p>
      ) : null}
    </section>
  );
}

function parentFolders(filePath: string): string[] {
  const parts = filePath.split("/");
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join("/"));
}
