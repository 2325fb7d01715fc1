// A small Markdown reader for model replies: text in, a tree of plain data out. Components turn
// the tree into DOM nodes with text children only, so nothing a model writes is ever parsed as
// HTML (`<img onerror=…>` stays the literal text it is).

export type InlineNode =
  | { type: "text"; text: string }
  | { type: "code"; text: string }
  | { type: "strong"; children: InlineNode[] }
  | { type: "emphasis"; children: InlineNode[] }
  | { type: "link"; href: string; children: InlineNode[] };

export type BlockNode =
  | { type: "paragraph"; children: InlineNode[] }
  | { type: "heading"; level: number; children: InlineNode[] }
  | { type: "code-block"; language: string; code: string; closed: boolean }
  | { type: "list"; ordered: boolean; items: InlineNode[][] }
  | { type: "quote"; children: InlineNode[] }
  | { type: "rule" };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;

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
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") {
        fence = undefined;
        flush();
      }
    } else {
      const opening = FENCE.exec(line);
      if (opening?.[1] !== undefined) {
        flush();
        currentStart = lineStart;
        fence = opening[1];
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

/** Parses one block source from `splitBlocks` (it may hold a list or several lines). */
export function parseBlock(source: string): BlockNode[] {
  const lines = source.split("\n");
  const first = lines[0] ?? "";
  const opening = FENCE.exec(first);
  if (opening?.[1] !== undefined) {
    const fence = opening[1];
    const last = lines.at(-1)?.trim() ?? "";
    const closed = lines.length > 1 && last.startsWith(fence) && last.replace(/[`~]/g, "") === "";
    const body = lines.slice(1, closed ? -1 : undefined);
    return [{ type: "code-block", language: opening[2] ?? "", code: body.join("\n"), closed }];
  }
  const blocks: BlockNode[] = [];
  let paragraph: string[] = [];
  let list: { ordered: boolean; items: string[] } | undefined;
  let quote: string[] = [];
  const flushParagraph = (): void => {
    if (paragraph.length > 0)
      blocks.push({ type: "paragraph", children: parseInline(paragraph.join("\n")) });
    paragraph = [];
  };
  const flushList = (): void => {
    if (list !== undefined) {
      blocks.push({ type: "list", ordered: list.ordered, items: list.items.map(parseInline) });
    }
    list = undefined;
  };
  const flushQuote = (): void => {
    if (quote.length > 0) blocks.push({ type: "quote", children: parseInline(quote.join("\n")) });
    quote = [];
  };
  const flushAll = (): void => {
    flushParagraph();
    flushList();
    flushQuote();
  };
  for (const line of lines) {
    const heading = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d{1,9}[.)]\s+(.*)$/.exec(line);
    const quoted = /^\s*>\s?(.*)$/.exec(line);
    if (heading?.[1] !== undefined) {
      flushAll();
      blocks.push({
        type: "heading",
        level: heading[1].length,
        children: parseInline(heading[2] ?? ""),
      });
    } else if (/^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flushAll();
      blocks.push({ type: "rule" });
    } else if (bullet !== undefined && bullet !== null) {
      flushParagraph();
      flushQuote();
      if (list?.ordered !== false) flushList();
      list ??= { ordered: false, items: [] };
      list.items.push(bullet[1] ?? "");
    } else if (numbered !== null) {
      flushParagraph();
      flushQuote();
      if (list?.ordered !== true) flushList();
      list ??= { ordered: true, items: [] };
      list.items.push(numbered[1] ?? "");
    } else if (quoted !== null) {
      flushParagraph();
      flushList();
      quote.push(quoted[1] ?? "");
    } else if (list !== undefined && /^\s+\S/.test(line)) {
      // A continuation line of the current list item.
      const items = list.items;
      items[items.length - 1] = `${items.at(-1) ?? ""}\n${line.trim()}`;
    } else {
      flushList();
      flushQuote();
      // As CommonMark: a paragraph line's leading spaces are not text. A model whose tokens carry
      // their space in front (" Para" after a blank line) otherwise started it with a stray space.
      paragraph.push(line.replace(/^[ \t]+/, ""));
    }
  }
  flushAll();
  return blocks;
}

export function parseMarkdown(text: string): BlockNode[] {
  return splitBlocks(text).flatMap(parseBlock);
}

/** Inline spans: `code`, **strong**, *emphasis* / _emphasis_, [links](https://…). */
export function parseInline(text: string): InlineNode[] {
  const nodes: InlineNode[] = [];
  let plain = "";
  const pushPlain = (): void => {
    if (plain !== "") nodes.push({ type: "text", text: plain });
    plain = "";
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (
      character === "\\" &&
      index + 1 < text.length &&
      /[\\`*_[\]()#>-]/.test(text[index + 1] ?? "")
    ) {
      plain += text[index + 1];
      index += 2;
      continue;
    }
    if (character === "`") {
      const run = /^`+/.exec(text.slice(index))?.[0] ?? "`";
      const end = text.indexOf(run, index + run.length);
      if (end > 0) {
        pushPlain();
        nodes.push({ type: "code", text: text.slice(index + run.length, end).trim() || " " });
        index = end + run.length;
        continue;
      }
    }
    if (
      (character === "*" || character === "_") &&
      text[index + 1] === character &&
      !(character === "_" && /\w/.test(text[index - 1] ?? ""))
    ) {
      const end = text.indexOf(character + character, index + 2);
      if (end > index + 2) {
        pushPlain();
        nodes.push({ type: "strong", children: parseInline(text.slice(index + 2, end)) });
        index = end + 2;
        continue;
      }
    }
    if ((character === "*" || character === "_") && isEmphasisStart(text, index)) {
      const end = findEmphasisEnd(text, index + 1, character);
      if (end > index + 1) {
        pushPlain();
        nodes.push({ type: "emphasis", children: parseInline(text.slice(index + 1, end)) });
        index = end + 1;
        continue;
      }
    }
    if (character === "[") {
      const link = /^\[([^\]\n]+)\]\(([^)\s]+)\)/.exec(text.slice(index));
      if (link?.[1] !== undefined && link[2] !== undefined) {
        pushPlain();
        const href = safeHref(link[2]);
        const children = parseInline(link[1]);
        if (href === undefined) nodes.push(...children, { type: "text", text: ` (${link[2]})` });
        else nodes.push({ type: "link", href, children });
        index += link[0].length;
        continue;
      }
    }
    plain += character;
    index += 1;
  }
  pushPlain();
  return nodes;
}

/** Only web links become anchors: `javascript:` and friends stay text. */
export function safeHref(href: string): string | undefined {
  try {
    const url = new URL(href);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function isEmphasisStart(text: string, index: number): boolean {
  const next = text[index + 1];
  const previous = text[index - 1];
  if (next === undefined || /\s/.test(next)) return false;
  // snake_case_names are not emphasis.
  return !(text[index] === "_" && previous !== undefined && /\w/.test(previous));
}

function findEmphasisEnd(text: string, from: number, marker: string): number {
  for (let index = from; index < text.length; index += 1) {
    if (text[index] === "\n" && text[index + 1] === "\n") return -1;
    if (text[index] !== marker) continue;
    const previous = text[index - 1];
    const next = text[index + 1];
    if (previous === undefined || /\s/.test(previous)) continue;
    if (marker === "_" && next !== undefined && /\w/.test(next)) continue;
    return index;
  }
  return -1;
}
