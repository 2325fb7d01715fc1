// Parses apply_patch text (the Codex format: *** Begin Patch … *** End Patch) into operations,
// following codex-rs/apply-patch's lenient parser; every syntax error names its patch line.
import { EditError } from "./edit-error.ts";
import type { ParsedPatch, PatchLine, PatchOperation, UpdateChunk } from "./patch-types.ts";

const BEGIN_PATCH = "*** Begin Patch";
const END_PATCH = "*** End Patch";
const ADD_FILE = "*** Add File: ";
const DELETE_FILE = "*** Delete File: ";
const UPDATE_FILE = "*** Update File: ";
const MOVE_TO = "*** Move to: ";
const END_OF_FILE = "*** End of File";
const HEREDOC_STARTS = new Set(["<<EOF", "<<'EOF'", '<<"EOF"']);
// Models sometimes write unified-diff hunk headers; the text after them is a usable anchor.
const UNIFIED_HUNK_HEADER = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/;

function syntaxError(line: number, message: string): EditError {
  return new EditError("patch_syntax", `apply_patch syntax error at line ${line}: ${message}`, {
    patchLine: line,
  });
}

class PatchCursor {
  constructor(
    readonly lines: readonly string[],
    public index: number,
    readonly end: number,
  ) {}

  get done(): boolean {
    return this.index >= this.end;
  }

  /** The current line; only call when !done. */
  get current(): string {
    return this.lines[this.index] ?? "";
  }

  /** 1-based line number in the original patch text. */
  get lineNumber(): number {
    return this.index + 1;
  }
}

export function parsePatch(patchText: string): ParsedPatch {
  const lines = patchText.replaceAll("\r\n", "\n").split("\n");
  let first = lines.findIndex((line) => line.trim().length > 0);
  let last = lines.findLastIndex((line) => line.trim().length > 0);
  if (first === -1) throw syntaxError(1, `the patch is empty; it must start with '${BEGIN_PATCH}'`);
  // A patch wrapped in a shell heredoc (<<'EOF' … EOF) is accepted, as Codex does.
  if (
    HEREDOC_STARTS.has((lines[first] ?? "").trim()) &&
    (lines[last] ?? "").trimEnd().endsWith("EOF") &&
    last - first >= 3
  ) {
    first += 1;
    last -= 1;
  }
  if ((lines[first] ?? "").trim() !== BEGIN_PATCH) {
    throw syntaxError(first + 1, `the first line of the patch must be '${BEGIN_PATCH}'`);
  }
  if (last === first || (lines[last] ?? "").trim() !== END_PATCH) {
    throw syntaxError(last + 1, `the last line of the patch must be '${END_PATCH}'`);
  }
  const cursor = new PatchCursor(lines, first + 1, last);
  const operations: PatchOperation[] = [];
  while (!cursor.done) {
    if (cursor.current.trim().length === 0) {
      cursor.index += 1;
      continue;
    }
    operations.push(parseOperation(cursor));
  }
  return { operations };
}

function headerPath(cursor: PatchCursor, header: string, marker: string): string {
  const filePath = header.slice(marker.length).trim();
  if (filePath.length === 0) throw syntaxError(cursor.lineNumber, `'${header}' names no file`);
  return filePath;
}

function parseOperation(cursor: PatchCursor): PatchOperation {
  const header = cursor.current.trim();
  const patchLine = cursor.lineNumber;
  if (header.startsWith(ADD_FILE)) {
    const filePath = headerPath(cursor, header, ADD_FILE);
    cursor.index += 1;
    const contentLines: string[] = [];
    while (!cursor.done && cursor.current.startsWith("+")) {
      contentLines.push(cursor.current.slice(1));
      cursor.index += 1;
    }
    const content = contentLines.length === 0 ? "" : `${contentLines.join("\n")}\n`;
    return { type: "add-file", path: filePath, content, patchLine };
  }
  if (header.startsWith(DELETE_FILE)) {
    const filePath = headerPath(cursor, header, DELETE_FILE);
    cursor.index += 1;
    return { type: "delete-file", path: filePath, patchLine };
  }
  if (header.startsWith(UPDATE_FILE)) return parseUpdate(cursor, header);
  throw syntaxError(
    patchLine,
    `'${header}' is not a valid hunk header. Valid hunk headers: '${ADD_FILE}{path}', '${DELETE_FILE}{path}', '${UPDATE_FILE}{path}'`,
  );
}

function parseUpdate(cursor: PatchCursor, header: string): PatchOperation {
  const patchLine = cursor.lineNumber;
  const filePath = headerPath(cursor, header, UPDATE_FILE);
  cursor.index += 1;
  let moveTo: string | undefined;
  if (!cursor.done && cursor.current.trim().startsWith(MOVE_TO)) {
    moveTo = headerPath(cursor, cursor.current.trim(), MOVE_TO);
    cursor.index += 1;
  }
  const chunks: UpdateChunk[] = [];
  while (!cursor.done) {
    if (cursor.current.trim().length === 0) {
      cursor.index += 1;
      continue;
    }
    if (cursor.current.startsWith("*")) break;
    chunks.push(parseChunk(cursor, chunks.length === 0));
  }
  if (chunks.length === 0) {
    throw syntaxError(
      patchLine,
      `the update for '${filePath}' has no hunks (@@ followed by lines)`,
    );
  }
  return { type: "update-file", path: filePath, moveTo, chunks, patchLine };
}

/** Returns the anchor of an @@ line ("" for a bare @@), or undefined if it is not one. */
function anchorOf(line: string): string | undefined {
  const trimmed = line.trimEnd();
  if (trimmed === "@@") return "";
  const unified = UNIFIED_HUNK_HEADER.exec(trimmed);
  if (unified !== null) return (unified[1] ?? "").trim();
  return trimmed.startsWith("@@ ") ? trimmed.slice(3) : undefined;
}

function parseChunk(cursor: PatchCursor, isFirstChunk: boolean): UpdateChunk {
  const patchLine = cursor.lineNumber;
  const anchors: string[] = [];
  let sawMarker = false;
  for (let anchor = anchorOf(cursor.current); anchor !== undefined && !cursor.done;) {
    sawMarker = true;
    if (anchor.trim().length > 0) anchors.push(anchor);
    cursor.index += 1;
    anchor = cursor.done ? undefined : anchorOf(cursor.current);
  }
  if (!sawMarker && !isFirstChunk) {
    throw syntaxError(
      cursor.lineNumber,
      `expected the hunk to start with an @@ line, got: '${cursor.current}'`,
    );
  }
  const lines: PatchLine[] = [];
  let endOfFile = false;
  while (!cursor.done) {
    const line = cursor.current;
    if (line.trim() === END_OF_FILE) {
      if (lines.length === 0) break;
      endOfFile = true;
      cursor.index += 1;
      break;
    }
    const marker = line.charAt(0);
    if (line.length === 0) lines.push({ kind: "context", text: "" });
    else if (marker === " ") lines.push({ kind: "context", text: line.slice(1) });
    else if (marker === "+") lines.push({ kind: "add", text: line.slice(1) });
    else if (marker === "-") lines.push({ kind: "remove", text: line.slice(1) });
    else if (lines.length === 0) {
      throw syntaxError(
        cursor.lineNumber,
        `unexpected line in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
      );
    } else break;
    cursor.index += 1;
  }
  if (lines.length === 0) {
    const line = cursor.done ? patchLine : cursor.lineNumber;
    throw syntaxError(line, "the hunk does not contain any lines");
  }
  return { anchors, lines, endOfFile, patchLine };
}
