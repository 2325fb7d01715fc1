// A small Markdown reader for model replies: text in, a tree of plain data out (paragraphs,
// headings, nested lists, quotes, rules, tables, fenced code with its language). Each surface
// renders the tree its own way (Preact elements, DOM built with textContent, Ink <Text>), so
// nothing a model writes is ever parsed as HTML: `<img onerror=…>` stays the text it is.
import { parseInline, type InlineNode } from "./markdown-inline.ts";
import {
  closesFence,
  readFence,
  readMarkdownLine,
  type ColumnAlignment,
  type MarkdownLine,
} from "./markdown-lines.ts";

export type { InlineNode } from "./markdown-inline.ts";
export type { ColumnAlignment } from "./markdown-lines.ts";

export interface ListItem {
  children: InlineNode[];
  /** Items indented under this one. */
  sublist?: ListBlock;
}

export interface ListBlock {
  type: "list";
  ordered: boolean;
  /** The first item's number of an ordered list (`3.` starts at 3). */
  start?: number;
  items: ListItem[];
}

export interface TableBlock {
  type: "table";
  alignments: ColumnAlignment[];
  header: InlineNode[][];
  /** Each row has as many cells as the header (missing cells are empty, extra ones dropped). */
  rows: InlineNode[][][];
}

export type BlockNode =
  | { type: "paragraph"; children: InlineNode[] }
  | { type: "heading"; level: number; children: InlineNode[] }
  | { type: "code-block"; language: string; code: string; closed: boolean }
  | ListBlock
  | TableBlock
  | { type: "quote"; children: InlineNode[] }
  | { type: "rule" };

export function parseMarkdown(text: string): BlockNode[] {
  return splitBlocks(text).flatMap(parseBlock);
}

/** Block sources with the offset each starts at, for the next incremental split. */
export interface BlockSplit {
  text: string;
  blocks: string[];
  starts: number[];
}

/**
 * Splits text into top-level block sources (blank lines end a block, except inside a fence), so
 * a streaming reply re-parses only its last block: every earlier source string is unchanged.
 */
export function splitBlocks(text: string): string[] {
  return splitBlocksFrom(undefined, text).blocks;
}

/**
 * The same split, reusing `previous` when `text` extends its text (a streaming reply): only the
 * last block onwards is scanned again, and earlier block strings are the very same objects.
 */
export function splitBlocksFrom(previous: BlockSplit | undefined, text: string): BlockSplit {
  let blocks: string[] = [];
  let starts: number[] = [];
  let offset = 0;
  if (previous !== undefined && text.startsWith(previous.text) && previous.blocks.length > 0) {
    // Every block but the last is finished: no later line can change it.
    blocks = previous.blocks.slice(0, -1);
    starts = previous.starts.slice(0, -1);
    offset = previous.starts.at(-1) ?? 0;
  }
  let current: string[] = [];
  let currentStart = offset;
  let fence: string | undefined;
  const flush = (): void => {
    if (current.length > 0) {
      blocks.push(current.join("\n"));
      starts.push(currentStart);
    }
    current = [];
  };
  let lineStart = offset;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    if (current.length === 0) currentStart = lineStart;
    if (fence !== undefined) {
      current.push(line);
      if (closesFence(line, fence)) {
        fence = undefined;
        flush();
      }
    } else {
      const opening = readFence(line);
      if (opening !== undefined) {
        flush();
        currentStart = lineStart;
        fence = opening.marker;
        current.push(line);
      } else if (line.trim() === "") flush();
      else current.push(line);
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  flush();
  return { text, blocks, starts };
}

/** Parses one block source from `splitBlocks` (it may hold a list, a table, several lines). */
export function parseBlock(source: string): BlockNode[] {
  const lines = source.split("\n");
  const opening = readFence(lines[0] ?? "");
  if (opening !== undefined) {
    const closed = lines.length > 1 && closesFence(lines.at(-1) ?? "", opening.marker);
    const body = lines.slice(1, closed ? -1 : undefined);
    return [{ type: "code-block", language: opening.language, code: body.join("\n"), closed }];
  }
  const reader = new BlockReader();
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    const read = readMarkdownLine(line);
    const next = readMarkdownLine(lines[index + 1] ?? "");
    if (read.kind === "table-row" && next.kind === "table-divider" && !reader.inTable()) {
      reader.startTable(read.cells, next.alignments);
      index += 1;
    } else reader.add(read, line);
  }
  return reader.finish();
}

type ListItemLine = Extract<MarkdownLine, { kind: "list-item" }>;

interface OpenList {
  indent: number;
  ordered: boolean;
  start: number;
  items: { text: string; sublist?: ListBlock }[];
}

function openList(read: ListItemLine): OpenList {
  const start = read.ordered ? Number.parseInt(read.marker, 10) : 1;
  return { indent: read.indent, ordered: read.ordered, start, items: [{ text: read.text }] };
}

/** Groups read lines into blocks: runs of paragraph lines, list items, quote lines, table rows. */
class BlockReader {
  private readonly blocks: BlockNode[] = [];
  private paragraph: string[] = [];
  private quote: string[] = [];
  private table: { alignments: ColumnAlignment[]; header: string[]; rows: string[][] } | undefined;
  /** The open lists, outermost first, each with the indent of its items. */
  private lists: OpenList[] = [];

  inTable(): boolean {
    return this.table !== undefined;
  }

  startTable(header: string[], alignments: ColumnAlignment[]): void {
    this.flush();
    this.table = {
      alignments: header.map((_, index) => alignments[index] ?? "none"),
      header,
      rows: [],
    };
  }

  add(read: MarkdownLine, line: string): void {
    if (this.table !== undefined && read.kind === "table-row") {
      this.table.rows.push(read.cells);
      return;
    }
    switch (read.kind) {
      case "blank":
        this.flush();
        return;
      case "heading":
        this.flush();
        this.blocks.push({ type: "heading", level: read.level, children: parseInline(read.text) });
        return;
      case "rule":
        this.flush();
        this.blocks.push({ type: "rule" });
        return;
      case "list-item":
        this.addListItem(read);
        return;
      case "quote":
        if (this.quote.length === 0) this.flush();
        this.quote.push(read.text);
        return;
      default:
        this.addTextLine(line);
    }
  }

  private addTextLine(line: string): void {
    const item = this.lists.at(-1)?.items.at(-1);
    if (item !== undefined && /^\s+\S/.test(line)) {
      // A continuation line of the current list item.
      item.text += `\n${line.trim()}`;
      return;
    }
    if (this.paragraph.length === 0) this.flush();
    // As CommonMark: a paragraph line's leading spaces are not text. A model whose tokens carry
    // their space in front (" Para" after a blank line) otherwise started it with a stray space.
    this.paragraph.push(line.replace(/^[ \t]+/, ""));
  }

  private addListItem(read: ListItemLine): void {
    const outermost = this.lists[0];
    // A list starts, or a top-level item of the other kind (1. after -) starts another one.
    if (
      outermost === undefined ||
      (read.indent <= outermost.indent && read.ordered !== outermost.ordered)
    ) {
      this.flush();
      this.lists.push(openList(read));
      return;
    }
    while (this.lists.length > 1 && read.indent < (this.lists.at(-1)?.indent ?? 0))
      this.closeList();
    const deepest = this.lists.at(-1);
    if (deepest === undefined) return;
    if (read.indent > deepest.indent) this.lists.push(openList(read));
    else deepest.items.push({ text: read.text });
  }

  /** Makes the deepest open list a block: under its parent's last item, or a block of its own. */
  private closeList(): void {
    const closing = this.lists.pop();
    if (closing === undefined) return;
    const list: ListBlock = {
      type: "list",
      ordered: closing.ordered,
      ...(closing.ordered && closing.start !== 1 ? { start: closing.start } : {}),
      items: closing.items.map((item) => ({
        children: parseInline(item.text),
        ...(item.sublist === undefined ? {} : { sublist: item.sublist }),
      })),
    };
    const parentItem = this.lists.at(-1)?.items.at(-1);
    if (parentItem === undefined) this.blocks.push(list);
    else if (parentItem.sublist === undefined) parentItem.sublist = list;
    // The same item's second run of sub-items (after a deeper one closed) joins the first.
    else parentItem.sublist.items.push(...list.items);
  }

  flush(): void {
    if (this.paragraph.length > 0)
      this.blocks.push({ type: "paragraph", children: parseInline(this.paragraph.join("\n")) });
    this.paragraph = [];
    if (this.quote.length > 0)
      this.blocks.push({ type: "quote", children: parseInline(this.quote.join("\n")) });
    this.quote = [];
    while (this.lists.length > 0) this.closeList();
    if (this.table !== undefined) {
      const { alignments, header, rows } = this.table;
      const cells = (row: string[]): InlineNode[][] =>
        header.map((_, index) => parseInline(row[index] ?? ""));
      this.blocks.push({ type: "table", alignments, header: cells(header), rows: rows.map(cells) });
    }
    this.table = undefined;
  }

  finish(): BlockNode[] {
    this.flush();
    return this.blocks;
  }
}
