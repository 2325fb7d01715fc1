// Plain-text tables for the terminal: columns padded to their widest cell, numbers right-aligned.
import type { Cell, ResultTable } from "./scenario-result.ts";

export function formatCell(cell: Cell): string {
  if (cell === null) return "–";
  if (typeof cell === "string") return cell;
  if (!Number.isFinite(cell)) return "n/a";
  if (Number.isInteger(cell)) return String(cell);
  const magnitude = Math.abs(cell);
  return cell.toFixed(magnitude >= 100 ? 1 : magnitude >= 1 ? 2 : 3);
}

export function formatTable(table: ResultTable): string {
  const rows = table.rows.map((row) => row.map(formatCell));
  const widths = table.columns.map((column, index) =>
    Math.max(column.length, ...rows.map((row) => row[index]?.length ?? 0)),
  );
  const numeric = table.columns.map((_column, index) =>
    table.rows.every((row) => typeof row[index] !== "string"),
  );
  const line = (cells: string[], header: boolean) =>
    cells
      .map((cell, index) => {
        const width = widths[index] ?? cell.length;
        return numeric[index] === true && !header ? cell.padStart(width) : cell.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  return [
    table.title,
    line(table.columns, true),
    widths.map((width) => "-".repeat(width)).join("  "),
    ...rows.map((row) => line(row, false)),
  ].join("\n");
}
