// Reads the entries of git config text the way git's own parser does (config.c): section and key
// names case-insensitive, quoted values with escapes, `#`/`;` comments, line continuation. What
// is needed to find `core.hooksPath` and the files a config includes without spawning git;
// following the includes is repository-hooks.ts's.

interface Cursor {
  text: string;
  index: number;
}

const KEY = /^[A-Za-z][A-Za-z0-9-]*/;

export interface GitConfigEntry {
  /** Lower case; an old-style `[section.sub]` header gives "section.sub". */
  section: string;
  /** As written (`[includeIf "gitdir:~/work/"]` gives "gitdir:~/work/"); none: undefined. */
  subsection: string | undefined;
  /** Lower case. */
  key: string;
  /** A key without `=` is boolean true (""). */
  value: string;
}

/** The entries of `text` in file order, up to a malformed section header (where git stops). */
export function gitConfigEntries(text: string): GitConfigEntry[] {
  const cursor: Cursor = { text, index: 0 };
  const entries: GitConfigEntry[] = [];
  let header: { section: string; subsection: string | undefined } | undefined;
  while (cursor.index < text.length) {
    skipBlanks(cursor);
    const character = text[cursor.index];
    if (character === undefined) break;
    if (character === "\n" || character === "#" || character === ";") {
      skipLine(cursor);
      continue;
    }
    if (character === "[") {
      header = readSectionHeader(cursor);
      if (header === undefined) return entries; // git stops at a malformed header too.
      continue; // A key may follow the header on the same line.
    }
    const name = KEY.exec(text.slice(cursor.index))?.[0];
    if (name === undefined) {
      skipLine(cursor);
      continue;
    }
    cursor.index += name.length;
    skipBlanks(cursor);
    let value = "";
    if (text[cursor.index] === "=") {
      cursor.index += 1;
      value = readValue(cursor);
    } else {
      skipLine(cursor);
    }
    if (header !== undefined) entries.push({ ...header, key: name.toLowerCase(), value });
  }
  return entries;
}

function skipBlanks(cursor: Cursor): void {
  while (/[ \t\r\f\v]/.test(cursor.text[cursor.index] ?? "")) cursor.index += 1;
}

function skipLine(cursor: Cursor): void {
  const end = cursor.text.indexOf("\n", cursor.index);
  cursor.index = end === -1 ? cursor.text.length : end + 1;
}

/** `[name]`, or `[name "sub"]` with the subsection's escapes (`\"`, `\\`) applied. */
function readSectionHeader(
  cursor: Cursor,
): { section: string; subsection: string | undefined } | undefined {
  const match = /^\[[ \t]*([A-Za-z0-9.-]+)(?:[ \t]+"((?:[^"\\\n]|\\.)*)")?[ \t]*\]/.exec(
    cursor.text.slice(cursor.index),
  );
  if (match?.[1] === undefined) return undefined;
  cursor.index += match[0].length;
  const subsection = match[2]?.replace(/\\(.)/g, "$1");
  return { section: match[1].toLowerCase(), subsection };
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", b: "\b", '"': '"', "\\": "\\" };

/** A value up to the end of its (possibly continued) line: quotes removed, escapes applied. */
function readValue(cursor: Cursor): string {
  const { text } = cursor;
  let value = "";
  let pendingSpace = "";
  let quoted = false;
  skipBlanks(cursor);
  while (cursor.index < text.length) {
    const character = text[cursor.index] as string;
    cursor.index += 1;
    // git refuses a quote left open at the end of a line; the value so far is still guarded.
    if (character === "\n") break;
    if (!quoted && (character === "#" || character === ";")) {
      skipLine(cursor);
      break;
    }
    if (!quoted && /[ \t]/.test(character)) {
      if (value !== "") pendingSpace += character;
      continue;
    }
    if (character === "\\") {
      const next = text[cursor.index];
      cursor.index += 1;
      if (next === "\n") continue; // Line continuation.
      if (next === "\r" && text[cursor.index] === "\n") {
        cursor.index += 1;
        continue;
      }
      value += pendingSpace + (ESCAPES[next ?? ""] ?? next ?? "");
      pendingSpace = "";
      continue;
    }
    if (character === '"') {
      quoted = !quoted;
      continue;
    }
    if (character === "\r" && text[cursor.index] === "\n") continue;
    value += pendingSpace + character;
    pendingSpace = "";
  }
  return value;
}
