// How wide a finished item's box is drawn. Answer text, code, diffs and command output are drawn
// as wide as their longest line, never cut by Ink: the terminal wraps them itself, so they reflow
// when it is resized and copy out without line breaks that were never in the text. Everything
// else wraps at the terminal's width.
import { layoutTable, tableWidth } from "../state/answer-table.ts";
import { displayWidth } from "../state/terminal-text.ts";
import type { TranscriptItem } from "../state/transcript-item.ts";

/** DiffView's and a command's tail's indent, and the answer's "● ". */
const INDENT = 2;

export function unwrappedWidth(item: TranscriptItem, columns: number): number {
  return Math.max(columns, naturalWidth(item));
}

function naturalWidth(item: TranscriptItem): number {
  switch (item.kind) {
    case "assistant": {
      if (item.block !== "table") return INDENT + displayWidth(item.text);
      const layout = layoutTable(item.text);
      return INDENT + (layout === undefined ? widestLine(item.text) : tableWidth(layout));
    }
    case "edit":
      return INDENT + widestLine(item.unifiedDiff);
    case "undo":
      return INDENT + Math.max(0, ...item.files.map((file) => widestLine(file.unifiedDiff)));
    case "tool-call":
      return INDENT + Math.max(0, ...(item.commandOutcome?.tail ?? []).map(displayWidth));
    case "command-output":
      return INDENT + Math.max(0, ...item.lines.map(displayWidth));
    default:
      return 0;
  }
}

function widestLine(text: string): number {
  return Math.max(0, ...text.split("\n").map(displayWidth));
}
