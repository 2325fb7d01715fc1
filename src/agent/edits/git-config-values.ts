// Reads one key's values out of git config text, the way git's own parser does (config.c): section
// and key names case-insensitive, quoted values with escapes, `#`/`;` comments, line continuation.
// Only what is needed to find `core.hooksPath` without spawning git; includes are not followed.

interface Cursor {
  text: string;
  index: number;
}

const KEY = /^[A-Za-z][A-Za-z0-9-]*/;

/**
 * Every value of `section.key` (no subsection) in `text`, in file order; git uses the last, a
 * caller guarding against all of them may use every one. A key without `=` is boolean true ("").
 */
export function gitConfigValues(text: string, section: string, key: string): string[] {
  const cursor: Cursor = { text, index: 0 };
  const values: string[] = [];
  let inSection = false;
  while (cursor.index < text.length) {
    skipBlanks(cursor);
    const character = text[cursor.index];
    if (character === undefined) break;
    if (character === "\n" || character === "#" || character === ";") {
      skipLine(cursor);
      continue;
    }
    if (character === "[") {
      const header = readSectionHeader(cursor);
      if (header === undefined) return values; // git stops at a malformed header too.
      inSection = header === section.toLowerCase();
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
    if (inSection && name.toLowerCase() === key.toLowerCase()) values.push(value);
  }
  return values;
}

function skipBlanks(cursor: Cursor): void {
  while (/[ \t\r\f\v]/.test(cursor.text[cursor.index] ?? "")) cursor.index += 1;
}

function skipLine(cursor: Cursor): void {
  const end = cursor.text.indexOf("\n", cursor.index);
  cursor.index = end === -1 ? cursor.text.length : end + 1;
}

/** `[name]` gives "name"; `[name "sub"]` gives "name.sub" (never equal to a plain section). */
function readSectionHeader(cursor: Cursor): string | undefined {
  const match = /^\[[ \t]*([A-Za-z0-9.-]+)(?:[ \t]+"((?:[^"\\\n]|\\.)*)")?[ \t]*\]/.exec(
    cursor.text.slice(cursor.index),
  );
  if (match?.[1] === undefined) return undefined;
  cursor.index += match[0].length;
  const name = match[1].toLowerCase();
  return match[2] === undefined ? name : `${name}.${match[2]}`;
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
