// Builds DOM from the parsed Markdown tree of a reply (src/protocol/transcript, the reader every
// surface shares): elements made with createElement, text only ever set with textContent, so
// `<img onerror=…>` in a reply stays the text it is. Code blocks get Copy, Insert and Apply.
import {
  highlightCode,
  type BlockNode,
  type InlineNode,
  type ListBlock,
  type TableBlock,
} from "../../../../src/protocol/transcript/index.ts";

export interface CodeActions {
  copy(code: string): void;
  insert(code: string): void;
  /** Proposes the block as a diff where it belongs in the editor's file (see block-target.ts). */
  apply(code: string): void;
  openLink(href: string): void;
}

export function renderBlocks(blocks: readonly BlockNode[], actions: CodeActions): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const block of blocks) fragment.appendChild(renderBlock(block, actions));
  return fragment;
}

function renderBlock(block: BlockNode, actions: CodeActions): HTMLElement {
  switch (block.type) {
    case "paragraph":
      return withInline(document.createElement("p"), block.children, actions);
    case "heading":
      return withInline(
        document.createElement(`h${Math.min(6, Math.max(1, block.level))}`),
        block.children,
        actions,
      );
    case "quote":
      return withInline(document.createElement("blockquote"), block.children, actions);
    case "rule":
      return document.createElement("hr");
    case "list":
      return renderList(block, actions);
    case "table":
      return renderTable(block, actions);
    case "code-block":
      return codeBlock(block.code, block.language, actions);
    default:
      return block satisfies never;
  }
}

function renderList(block: ListBlock, actions: CodeActions): HTMLElement {
  const list = document.createElement(block.ordered ? "ol" : "ul");
  if (block.start !== undefined && list instanceof HTMLOListElement) list.start = block.start;
  for (const item of block.items) {
    const entry = withInline(document.createElement("li"), item.children, actions);
    if (item.sublist !== undefined) entry.appendChild(renderList(item.sublist, actions));
    list.appendChild(entry);
  }
  return list;
}

function renderTable(block: TableBlock, actions: CodeActions): HTMLElement {
  const table = document.createElement("table");
  const row = (cells: readonly InlineNode[][], tag: "th" | "td"): HTMLTableRowElement => {
    const line = document.createElement("tr");
    cells.forEach((cell, column) => {
      const element = withInline(document.createElement(tag), cell, actions);
      const alignment = block.alignments[column];
      if (alignment !== undefined && alignment !== "none") element.style.textAlign = alignment;
      line.appendChild(element);
    });
    return line;
  };
  const head = document.createElement("thead");
  head.appendChild(row(block.header, "th"));
  const body = document.createElement("tbody");
  for (const cells of block.rows) body.appendChild(row(cells, "td"));
  table.append(head, body);
  return table;
}

function codeBlock(code: string, language: string, actions: CodeActions): HTMLElement {
  const container = document.createElement("div");
  container.className = "code-block";
  const bar = document.createElement("div");
  bar.className = "code-actions";
  const label = document.createElement("span");
  label.className = "code-language";
  label.textContent = language;
  bar.appendChild(label);
  for (const [title, tooltip, action] of [
    ["Copy", "Copy to the clipboard", () => actions.copy(code)],
    ["Insert", "Insert at the cursor in the editor", () => actions.insert(code)],
    [
      "Apply",
      "Propose as an edit to the editor's file, as a diff: over the selection, or the code it rewrites",
      () => actions.apply(code),
    ],
  ] as const) {
    const button = document.createElement("button");
    button.textContent = title;
    button.title = tooltip;
    button.addEventListener("click", action);
    bar.appendChild(button);
  }
  const pre = document.createElement("pre");
  const element = document.createElement("code");
  for (const token of highlightCode(code, language)) {
    if (token.kind === "plain") {
      element.appendChild(document.createTextNode(token.text));
      continue;
    }
    const span = document.createElement("span");
    span.className = `token-${token.kind}`;
    span.textContent = token.text;
    element.appendChild(span);
  }
  pre.appendChild(element);
  container.append(bar, pre);
  return container;
}

function withInline<Element extends HTMLElement>(
  element: Element,
  nodes: readonly InlineNode[],
  actions: CodeActions,
): Element {
  for (const node of nodes) element.appendChild(renderInline(node, actions));
  return element;
}

function renderInline(node: InlineNode, actions: CodeActions): Node {
  switch (node.type) {
    case "text":
      return document.createTextNode(node.text);
    case "code": {
      const code = document.createElement("code");
      code.textContent = node.text;
      return code;
    }
    case "strong":
      return withInline(document.createElement("strong"), node.children, actions);
    case "emphasis":
      return withInline(document.createElement("em"), node.children, actions);
    case "strike":
      return withInline(document.createElement("del"), node.children, actions);
    case "link": {
      // The extension opens it (http and https only); the webview itself never navigates.
      const link = document.createElement("a");
      link.href = "#";
      link.title = node.href;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        actions.openLink(node.href);
      });
      return withInline(link, node.children, actions);
    }
    default:
      return node satisfies never;
  }
}
