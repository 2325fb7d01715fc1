// A small Markdown reading of an answer, one finished line at a time (the transcript keeps logical
// lines): which block a line is (heading, list item, quote, rule, code fence, paragraph) and its
// inline spans (`code`, **bold**, *italic*, ~~strike~~, [links](url)). Enough for what models write; tables
// and HTML stay as they are.

export type InlineStyle = "plain" | "code" | "bold" | "italic" | "strike" | "link";

export interface InlineSpan {
  text: string;
  style: InlineStyle;
}

export type MarkdownLine =
  | { kind: "heading"; level: number; text: string }
  | { kind: "list-item"; indent: string; marker: string; text: string }
  | { kind: "quote"; text: string }
  | { kind: "rule" }
  | { kind: "paragraph"; text: string };

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)/;

/** An opening or closing code fence: its marker (``` or ~~~, at least three) and language. */
export function readFence(line: string): { marker: string; language: string } | undefined {
  const match = FENCE.exec(line);
  if (match === null) return undefined;
  return { marker: match[1] ?? "```", language: match[2] ?? "" };
}

/** Whether `line` closes a block opened with `openingMarker`. */
export function closesFence(line: string, openingMarker: string): boolean {
  const fence = readFence(line);
  return (
    fence !== undefined &&
    fence.language === "" &&
    fence.marker[0] === openingMarker[0] &&
    fence.marker.length >= openingMarker.length
  );
}

export function classifyMarkdownLine(line: string): MarkdownLine {
  const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading !== null)
    return { kind: "heading", level: heading[1]?.length ?? 1, text: heading[2] ?? "" };
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return { kind: "rule" };
  const item = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/.exec(line);
  if (item !== null) {
    const marker = item[2] ?? "-";
    return {
      kind: "list-item",
      indent: item[1] ?? "",
      marker: /^[-*+]$/.test(marker) ? "•" : marker,
      text: item[3] ?? "",
    };
  }
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  if (quote !== null) return { kind: "quote", text: quote[1] ?? "" };
  return { kind: "paragraph", text: line };
}

/**
 * Inline spans, left to right. An opening mark with no closing one on the line stays literal
 * (a live line may not have its closing mark yet).
 */
export function parseInline(text: string): InlineSpan[] {
  const spans: InlineSpan[] = [];
  let plain = "";
  const flush = (): void => {
    if (plain !== "") spans.push({ text: plain, style: "plain" });
    plain = "";
  };
  let index = 0;
  while (index < text.length) {
    const found = readInlineAt(text, index);
    if (found === undefined) {
      plain += text[index] ?? "";
      index += 1;
      continue;
    }
    flush();
    spans.push(found.span);
    index = found.end;
  }
  flush();
  return spans;
}

function readInlineAt(text: string, start: number): { span: InlineSpan; end: number } | undefined {
  const character = text[start];
  if (character === "`") {
    const ticks = /^`+/.exec(text.slice(start))?.[0] ?? "`";
    const close = text.indexOf(ticks, start + ticks.length);
    if (close === -1) return undefined;
    const code = text.slice(start + ticks.length, close);
    // `` `x` `` keeps its inner spaces trimmed by one, as CommonMark does.
    const trimmed = /^ .* $/.test(code) ? code.slice(1, -1) : code;
    return { span: { text: trimmed, style: "code" }, end: close + ticks.length };
  }
  if (character === "*" || character === "_") {
    const double = text.startsWith(character.repeat(2), start);
    const mark = double ? character.repeat(2) : character;
    const inner = start + mark.length;
    // An opening mark is followed by a non-space; `_` inside a word (snake_case) is not a mark.
    if (/\s/.test(text[inner] ?? " ")) return undefined;
    if (character === "_" && /\w/.test(text[start - 1] ?? "")) return undefined;
    const close = findClosingMark(text, mark, inner);
    if (close === undefined) return undefined;
    return {
      span: { text: text.slice(inner, close), style: double ? "bold" : "italic" },
      end: close + mark.length,
    };
  }
  if (character === "~" && text.startsWith("~~", start)) {
    const inner = start + 2;
    if (/\s/.test(text[inner] ?? " ")) return undefined;
    const close = findClosingMark(text, "~~", inner);
    if (close === undefined) return undefined;
    return { span: { text: text.slice(inner, close), style: "strike" }, end: close + 2 };
  }
  if (character === "[") {
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(text.slice(start));
    if (link === null) return undefined;
    const label = link[1] ?? "";
    const url = link[2] ?? "";
    return {
      span: { text: label === url ? url : `${label} (${url})`, style: "link" },
      end: start + link[0].length,
    };
  }
  return undefined;
}

function findClosingMark(text: string, mark: string, from: number): number | undefined {
  let close = text.indexOf(mark, from + 1);
  while (close !== -1) {
    const before = text[close - 1] ?? " ";
    const after = text[close + mark.length] ?? " ";
    const closesHere =
      !/\s/.test(before) && (mark[0] !== "_" || !/\w/.test(after)) && after !== mark[0];
    if (closesHere) return close;
    close = text.indexOf(mark, close + 1);
  }
  return undefined;
}
