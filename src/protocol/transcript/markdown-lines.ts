// What one line of Markdown is (heading, list item, quote, rule, table row, fence, paragraph): the
// block reader groups these lines into a tree, and the terminal, which shows an answer a line at a
// time as it streams, draws each line from the same reading.

export type ColumnAlignment = "left" | "center" | "right" | "none";

export type MarkdownLine =
  | { kind: "blank" }
  | { kind: "heading"; level: number; text: string }
  | { kind: "rule" }
  /** `indent`: columns before the marker; a deeper item than the one above it is nested in it. */
  | { kind: "list-item"; indent: number; ordered: boolean; marker: string; text: string }
  | { kind: "quote"; text: string }
  /** A row of a table: `| a | b |` (the leading pipe is what tells it from prose). */
  | { kind: "table-row"; cells: string[] }
  /** The line under a table's header: `|---|:--:|`. */
  | { kind: "table-divider"; alignments: ColumnAlignment[] }
  | { kind: "paragraph"; text: string };

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const DIVIDER_CELL = /^:?-+:?$/;

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

/** One line outside a code block (fences are read with `readFence`). */
export function readMarkdownLine(line: string): MarkdownLine {
  if (line.trim() === "") return { kind: "blank" };
  const heading = HEADING.exec(line);
  if (heading !== null)
    return { kind: "heading", level: heading[1]?.length ?? 1, text: heading[2] ?? "" };
  if (RULE.test(line)) return { kind: "rule" };
  const item = LIST_ITEM.exec(line);
  if (item !== null) {
    const marker = item[2] ?? "-";
    return {
      kind: "list-item",
      indent: (item[1] ?? "").replace(/\t/g, "    ").length,
      ordered: /^\d/.test(marker),
      marker,
      text: item[3] ?? "",
    };
  }
  const quote = QUOTE.exec(line);
  if (quote !== null) return { kind: "quote", text: quote[1] ?? "" };
  const trimmed = line.trim();
  if (trimmed.startsWith("|")) {
    const cells = splitTableCells(trimmed);
    if (cells.length > 0 && cells.every((cell) => DIVIDER_CELL.test(cell)))
      return { kind: "table-divider", alignments: cells.map(alignmentOf) };
    return { kind: "table-row", cells };
  }
  return { kind: "paragraph", text: line };
}

/** `| a | b\|c |` → ["a", "b|c"]: the outer pipes dropped, an escaped pipe kept as text. */
export function splitTableCells(row: string): string[] {
  const cells: string[] = [];
  let cell = "";
  for (let index = 0; index < row.length; index += 1) {
    const character = row[index];
    if (character === "\\" && row[index + 1] === "|") {
      cell += "|";
      index += 1;
    } else if (character === "|") {
      cells.push(cell.trim());
      cell = "";
    } else cell += character;
  }
  cells.push(cell.trim());
  // The row's own leading and trailing pipes open and close it; they hold no cell.
  if (row.startsWith("|")) cells.shift();
  if (/[^\\]\|$/.test(row) || row === "|") cells.pop();
  return cells;
}

function alignmentOf(cell: string): ColumnAlignment {
  const left = cell.startsWith(":");
  const right = cell.endsWith(":");
  if (left && right) return "center";
  if (right) return "right";
  return left ? "left" : "none";
}
