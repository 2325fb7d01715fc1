// Text from the model, tools and files is data, never terminal instructions: escape sequences
// and other control characters are taken out before anything is drawn (Ink passes colours,
// hyperlinks and title changes through), tabs become spaces. And the width text takes on screen.

/** A whole escape sequence: CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), or ESC + one char. */
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]?/g;
/** C0 controls other than tab and newline, DEL and the C1 controls (0x80–0x9f: CSI, OSC, …). */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const TAB_WIDTH = 4;

/** Removes escape sequences and control characters; keeps newlines, expands tabs. */
export function terminalSafeText(text: string): string {
  const cleaned = text.replace(ESCAPE_SEQUENCE, "").replace(CONTROL_CHARACTER, "");
  return cleaned.includes("\t") ? expandTabs(cleaned) : cleaned;
}

function expandTabs(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      let column = 0;
      let out = "";
      for (const character of line) {
        if (character === "\t") {
          const spaces = TAB_WIDTH - (column % TAB_WIDTH);
          out += " ".repeat(spaces);
          column += spaces;
        } else {
          out += character;
          column += 1;
        }
      }
      return out;
    })
    .join("\n");
}

/**
 * Columns the text takes (an upper bound is fine: it sizes a box that must not wrap the line):
 * wide East Asian characters and emoji count two, combining marks none.
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if ((code >= 0x300 && code <= 0x36f) || code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f))
      continue;
    width += isWide(code) ? 2 : 1;
  }
  return width;
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x2600 && code <= 0x27bf) ||
    (code >= 0x1f000 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** The same value with every string in it made terminal-safe (events are plain JSON data). */
export function terminalSafeData<Value>(value: Value): Value {
  if (typeof value === "string") return terminalSafeText(value) as Value;
  if (Array.isArray(value)) return value.map((entry: unknown) => terminalSafeData(entry)) as Value;
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) copy[key] = terminalSafeData(entry);
    return copy as Value;
  }
  return value;
}
