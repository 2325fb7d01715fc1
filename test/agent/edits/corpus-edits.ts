// Generates realistic, deterministic edits of real source files for the corpus test: change a
// line, insert after a function signature, delete a block, rename an identifier once; each with
// 3+ lines of context, rendered both as apply_patch text and as a search/replace call.

export interface LineEdit {
  kind: "change-line" | "insert-after-signature" | "delete-block" | "rename-identifier";
  /** First replaced line (0-based) and how many lines are replaced. */
  start: number;
  deleteCount: number;
  insert: string[];
  /** Context lines kept on each side (grown past 3 until the block is unique). */
  before: number;
  after: number;
}

/** Small seeded PRNG (mulberry32), so every run generates the same corpus. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const SIGNATURE =
  /^\s*(?:(?:async\s+)?function\b.*\(|(?:static\s+|async\s+|get\s+|set\s+)*[A-Za-z_$][\w$]*\s*\([^)]*\)\s*\{\s*$)/;
const IDENTIFIER = /\b[A-Za-z_$][\w$]{3,}\b/g;
const KEYWORDS = new Set([
  "function",
  "return",
  "const",
  "this",
  "true",
  "false",
  "null",
  "async",
  "await",
  "else",
  "typeof",
  "undefined",
  "while",
  "class",
  "extends",
  "throw",
  "break",
  "continue",
  "require",
  "module",
  "exports",
  "static",
  "switch",
  "case",
  "default",
  "delete",
  "void",
  "instanceof",
]);

export function blockOf(
  lines: readonly string[],
  edit: LineEdit,
): { oldLines: string[]; newLines: string[] } {
  const first = Math.max(0, edit.start - edit.before);
  const last = Math.min(lines.length, edit.start + edit.deleteCount + edit.after);
  const head = lines.slice(first, edit.start);
  const tail = lines.slice(edit.start + edit.deleteCount, last);
  return {
    oldLines: [...head, ...lines.slice(edit.start, edit.start + edit.deleteCount), ...tail],
    newLines: [...head, ...edit.insert, ...tail],
  };
}

export function blockRange(lines: readonly string[], edit: LineEdit): [number, number] {
  return [
    Math.max(0, edit.start - edit.before),
    Math.min(lines.length, edit.start + edit.deleteCount + edit.after),
  ];
}

function countLineBlock(lines: readonly string[], block: readonly string[]): number {
  let count = 0;
  for (let start = 0; start + block.length <= lines.length; start += 1) {
    if (block.every((line, offset) => lines[start + offset] === line)) count += 1;
  }
  return count;
}

function countSubstring(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + 1))
    count += 1;
  return count;
}

/** Grows the context until the old block is unique both as lines and as a substring. */
function withUniqueContext(
  lines: readonly string[],
  text: string,
  edit: LineEdit,
): LineEdit | undefined {
  for (let context = 3; context <= 12; context += 1) {
    const candidate = { ...edit, before: context, after: context };
    const { oldLines } = blockOf(lines, candidate);
    if (oldLines.every((line) => line.trim().length === 0)) continue;
    if (countLineBlock(lines, oldLines) === 1 && countSubstring(text, oldLines.join("\n")) === 1)
      return candidate;
  }
  return undefined;
}

function indentOf(line: string): string {
  return /^\s*/.exec(line)?.[0] ?? "";
}

function proposeEdit(
  lines: readonly string[],
  random: () => number,
  kind: LineEdit["kind"],
): LineEdit | undefined {
  const pick = () => Math.floor(random() * lines.length);
  const base = { before: 3, after: 3 };
  switch (kind) {
    case "change-line": {
      const start = pick();
      const line = lines[start] ?? "";
      if (line.trim().length === 0) return undefined;
      return { kind, start, deleteCount: 1, insert: [`${line} // reviewed`], ...base };
    }
    case "insert-after-signature": {
      const signatures = lines.flatMap((line, index) => (SIGNATURE.test(line) ? [index] : []));
      const index = signatures[Math.floor(random() * signatures.length)];
      if (index === undefined) return undefined;
      const indent = `${indentOf(lines[index] ?? "")}  `;
      return {
        kind,
        start: index + 1,
        deleteCount: 0,
        insert: [`${indent}// traced: entry`, `${indent}void 0;`],
        ...base,
      };
    }
    case "delete-block": {
      const start = pick();
      const deleteCount = 2 + Math.floor(random() * 3);
      if (start + deleteCount > lines.length) return undefined;
      return { kind, start, deleteCount, insert: [], ...base };
    }
    case "rename-identifier": {
      const start = pick();
      const line = lines[start] ?? "";
      const names = [...line.matchAll(IDENTIFIER)].filter((match) => !KEYWORDS.has(match[0]));
      const chosen = names[Math.floor(random() * names.length)];
      if (chosen?.index === undefined) return undefined;
      const renamed = `${line.slice(0, chosen.index)}${chosen[0]}Renamed${line.slice(chosen.index + chosen[0].length)}`;
      return { kind, start, deleteCount: 1, insert: [renamed], ...base };
    }
    default:
      return kind satisfies never;
  }
}

const KINDS: LineEdit["kind"][] = [
  "change-line",
  "insert-after-signature",
  "delete-block",
  "rename-identifier",
];

/** Up to `perKind` edits of each kind for one file, each with a unique context block. */
export function generateEdits(text: string, seed: number, perKind: number): LineEdit[] {
  const lines = splitFileLines(text);
  const random = seededRandom(seed);
  const edits: LineEdit[] = [];
  for (const kind of KINDS) {
    let made = 0;
    for (let attempt = 0; attempt < perKind * 20 && made < perKind; attempt += 1) {
      const proposed = proposeEdit(lines, random, kind);
      const unique = proposed === undefined ? undefined : withUniqueContext(lines, text, proposed);
      if (unique === undefined) continue;
      edits.push(unique);
      made += 1;
    }
  }
  return edits;
}

export function splitFileLines(text: string): string[] {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/** The file's expected content after the edits (which must not overlap). */
export function expectedAfter(text: string, edits: readonly LineEdit[]): string {
  const lines = splitFileLines(text);
  const ordered = [...edits].sort((left, right) => right.start - left.start);
  for (const edit of ordered) lines.splice(edit.start, edit.deleteCount, ...edit.insert);
  const finalNewline = text.endsWith("\n") && lines.length > 0 ? "\n" : "";
  return lines.join("\n") + finalNewline;
}

export interface HunkStyle {
  /** Rewrites context and removed lines, as a model that mis-copied them would. */
  oldSide?: (line: string) => string;
  added?: (line: string) => string;
}

export function hunkText(
  lines: readonly string[],
  edit: LineEdit,
  style: HunkStyle = {},
): string[] {
  const oldSide = style.oldSide ?? ((line: string) => line);
  const added = style.added ?? ((line: string) => line);
  const [first, last] = blockRange(lines, edit);
  const hunk = ["@@"];
  for (let index = first; index < edit.start; index += 1)
    hunk.push(` ${oldSide(lines[index] ?? "")}`);
  for (let index = edit.start; index < edit.start + edit.deleteCount; index += 1) {
    hunk.push(`-${oldSide(lines[index] ?? "")}`);
  }
  for (const line of edit.insert) hunk.push(`+${added(line)}`);
  for (let index = edit.start + edit.deleteCount; index < last; index += 1) {
    hunk.push(` ${oldSide(lines[index] ?? "")}`);
  }
  return hunk;
}

export function patchText(
  relativePath: string,
  hunks: readonly string[][],
  moveTo?: string,
): string {
  return [
    "*** Begin Patch",
    `*** Update File: ${relativePath}`,
    ...(moveTo === undefined ? [] : [`*** Move to: ${moveTo}`]),
    ...hunks.flat(),
    "*** End Patch",
  ].join("\n");
}

/** Picks edits whose context blocks do not touch each other, in file order, for one multi-hunk patch. */
export function disjointEdits(
  lines: readonly string[],
  edits: readonly LineEdit[],
  limit: number,
): LineEdit[] {
  const chosen: LineEdit[] = [];
  for (const edit of [...edits].sort((left, right) => left.start - right.start)) {
    const [first] = blockRange(lines, edit);
    const previous = chosen.at(-1);
    if (previous !== undefined && blockRange(lines, previous)[1] >= first) continue;
    chosen.push(edit);
    if (chosen.length === limit) break;
  }
  return chosen;
}
