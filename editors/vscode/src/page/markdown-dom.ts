// Builds DOM from the parsed Markdown tree of a reply (web/src/state/markdown.ts, the browser
// app's reader): elements made with createElement, text only ever set with textContent, so
// `<img onerror=…>` in a reply stays the text it is. Code blocks get Copy, Insert and Apply.
import type { BlockNode, InlineNode } from "../../../../web/src/state/markdown.ts";

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
    case "list": {
      const list = document.createElement(block.ordered ? "ol" : "ul");
      for (const item of block.items)
        list.appendChild(withInline(document.createElement("li"), item, actions));
      return list;
    }
    case "code-block":
      return codeBlock(block.code, block.language, actions);
    default:
      return block satisfies never;
  }
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
  element.textContent = code;
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
