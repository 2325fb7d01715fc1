// Inline Markdown of a model's reply: `code`, **strong**, *emphasis* / _emphasis_, ~~strike~~ and
// [links](https://…), as a tree of plain data. An opening mark with no closing one stays the text it
// is (a streaming line may not have its closing mark yet); nothing here is ever HTML.

export type InlineNode =
  | { type: "text"; text: string }
  | { type: "code"; text: string }
  | { type: "strong"; children: InlineNode[] }
  | { type: "emphasis"; children: InlineNode[] }
  | { type: "strike"; children: InlineNode[] }
  /** Only http and https links are links; `href` has been checked by `safeHref`. */
  | { type: "link"; href: string; children: InlineNode[] };

const ESCAPABLE = /[\\`*_[\]()#>~|-]/;
const LINK = /^\[([^\]\n]+)\]\(([^)\s]+)\)/;

export function parseInline(text: string): InlineNode[] {
  const nodes: InlineNode[] = [];
  let plain = "";
  const pushPlain = (): void => {
    if (plain !== "") nodes.push({ type: "text", text: plain });
    plain = "";
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index] ?? "";
    if (character === "\\" && ESCAPABLE.test(text[index + 1] ?? "")) {
      plain += text[index + 1];
      index += 2;
      continue;
    }
    const found = readSpanAt(text, index);
    if (found === undefined) {
      plain += character;
      index += 1;
      continue;
    }
    pushPlain();
    nodes.push(...found.nodes);
    index = found.end;
  }
  pushPlain();
  return nodes;
}

/** The plain text of inline nodes, marks taken off (a link's label, a table cell's width). */
export function inlineText(nodes: readonly InlineNode[]): string {
  return nodes.map((node) => ("children" in node ? inlineText(node.children) : node.text)).join("");
}

/**
 * Only web links become links: `javascript:`, `data:` and friends stay text. The address is kept
 * as written (the browser reads it with the same URL parser that checked its scheme here).
 */
export function safeHref(href: string): string | undefined {
  try {
    const url = new URL(href);
    return url.protocol === "https:" || url.protocol === "http:" ? href : undefined;
  } catch {
    return undefined;
  }
}

function readSpanAt(text: string, start: number): { nodes: InlineNode[]; end: number } | undefined {
  const character = text[start];
  if (character === "`") {
    const ticks = /^`+/.exec(text.slice(start, start + 32))?.[0] ?? "`";
    const close = text.indexOf(ticks, start + ticks.length);
    if (close < 0) return undefined;
    const code = text.slice(start + ticks.length, close);
    // `` `x` `` keeps what is inside the one space on each side, as CommonMark does.
    const trimmed = /^ .* $/s.test(code) && code.trim() !== "" ? code.slice(1, -1) : code;
    return {
      nodes: [{ type: "code", text: trimmed === "" ? " " : trimmed }],
      end: close + ticks.length,
    };
  }
  if (character === "*" || character === "_") return readEmphasis(text, start, character);
  if (character === "~" && text.startsWith("~~", start)) {
    const close = findClosingMark(text, "~~", start + 2);
    if (close === undefined) return undefined;
    const children = parseInline(text.slice(start + 2, close));
    return { nodes: [{ type: "strike", children }], end: close + 2 };
  }
  if (character === "[") {
    const link = LINK.exec(text.slice(start, start + 2048));
    if (link?.[1] === undefined || link[2] === undefined) return undefined;
    const href = safeHref(link[2]);
    const children = parseInline(link[1]);
    const end = start + link[0].length;
    if (href === undefined)
      return { nodes: [...children, { type: "text", text: ` (${link[2]})` }], end };
    return { nodes: [{ type: "link", href, children }], end };
  }
  return undefined;
}

function readEmphasis(
  text: string,
  start: number,
  character: "*" | "_",
): { nodes: InlineNode[]; end: number } | undefined {
  // snake_case_names are not emphasis: `_` inside a word is not a mark.
  if (character === "_" && /\w/.test(text[start - 1] ?? "")) return undefined;
  const double = text.startsWith(character.repeat(2), start);
  const mark = double ? character.repeat(2) : character;
  const close = findClosingMark(text, mark, start + mark.length);
  // An unclosed `**` is read again from its second mark: **a* is "*" and <em>a</em>.
  if (close === undefined) return undefined;
  const children = parseInline(text.slice(start + mark.length, close));
  return {
    nodes: [{ type: double ? "strong" : "emphasis", children }],
    end: close + mark.length,
  };
}

/**
 * Where `mark` closes a span whose text starts at `from`: the text must not start or end with a
 * space (so 2 * 3 * 4 is arithmetic), and `_` must not close inside a word. A paragraph break
 * ends the search.
 */
function findClosingMark(text: string, mark: string, from: number): number | undefined {
  if (/\s/.test(text[from] ?? " ")) return undefined;
  let close = text.indexOf(mark, from + 1);
  while (close >= 0) {
    if (text.slice(from, close).includes("\n\n")) return undefined;
    const before = text[close - 1] ?? " ";
    const after = text[close + mark.length] ?? " ";
    const closesHere =
      !/\s/.test(before) &&
      (mark[0] !== "_" || !/\w/.test(after)) &&
      // A single mark beside another is part of a pair: *a **b** c* is <em>a <strong>b</strong> c</em>.
      !(mark.length === 1 && (after === mark || before === mark));
    if (closesHere) return close;
    close = text.indexOf(mark, close + 1);
  }
  return undefined;
}
