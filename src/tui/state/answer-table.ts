// A Markdown table of an answer laid out for the terminal: the shared reader's table (the browser
// and the editor get the same one), each column as wide as its widest cell, cells padded by their
// column's alignment. Text only: the view colours it.
import {
  inlineText,
  parseMarkdown,
  readMarkdownLine,
  type ColumnAlignment,
  type TableBlock,
} from "../../protocol/transcript/index.ts";
import { displayWidth } from "./terminal-text.ts";

/** Between two cells. */
export const CELL_GAP = " │ ";

export interface TableLayout {
  table: TableBlock;
  widths: number[];
}

/** Whether a finished prose line of an answer belongs to a table (a row or the header's divider). */
export function isTableLine(line: string): boolean {
  const kind = readMarkdownLine(line).kind;
  return kind === "table-row" || kind === "table-divider";
}

/** The table `text` holds, laid out; undefined when its lines are no table (no divider row). */
export function layoutTable(text: string): TableLayout | undefined {
  const blocks = parseMarkdown(text);
  const table = blocks[0];
  if (blocks.length !== 1 || table?.type !== "table") return undefined;
  const widths = table.header.map((cell, column) =>
    Math.max(
      1,
      displayWidth(inlineText(cell)),
      ...table.rows.map((row) => displayWidth(inlineText(row[column] ?? []))),
    ),
  );
  return { table, widths };
}

/** The spaces around a cell's text that fill its column. */
export function cellPadding(
  textWidth: number,
  columnWidth: number,
  alignment: ColumnAlignment,
): { before: string; after: string } {
  const room = Math.max(0, columnWidth - textWidth);
  const before = alignment === "right" ? room : alignment === "center" ? Math.floor(room / 2) : 0;
  return { before: " ".repeat(before), after: " ".repeat(room - before) };
}

/** The rule under the header: ─ under each column, ┼ where the gaps cross it. */
export function dividerLine(widths: readonly number[]): string {
  return widths.map((width) => "─".repeat(width)).join("─┼─");
}

/** How wide the laid-out table is drawn. */
export function tableWidth(layout: TableLayout): number {
  return (
    layout.widths.reduce((sum, width) => sum + width, 0) +
    CELL_GAP.length * (layout.widths.length - 1)
  );
}
