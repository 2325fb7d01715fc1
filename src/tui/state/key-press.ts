// Turns what the terminal sends into keys, one by one and in order. A fast burst (tmux send-keys,
// typing ahead, a paste without bracketed-paste mode) arrives as one string mixing text and
// control characters; each control character is its own key, so Ctrl+U in the middle of a burst
// clears what came before it and Enter sends only what precedes it. A bracketed paste is one
// `paste` key: its newlines are text, never Enter.

export type KeyName =
  | "text"
  | "paste"
  | "return"
  /** Ctrl+J or Alt+Enter: a newline in the input. */
  | "newline"
  | "tab"
  | "backtab"
  | "backspace"
  | "delete"
  | "escape"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  /** Ctrl plus a letter; `text` is the letter. */
  | "ctrl";

export interface KeyPress {
  name: KeyName;
  /** The typed or pasted text for `text`/`paste`, the letter for `ctrl`, otherwise "". */
  text: string;
  /** Alt (Option) was held. */
  meta: boolean;
}

const ESCAPE = "\u001b";
const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";

export interface KeyReader {
  /** The keys in one read from the terminal; a bracketed paste may span several reads. */
  read(input: string): KeyPress[];
}

export function createKeyReader(): KeyReader {
  let inPaste = false;
  return {
    read(input) {
      const keys: KeyPress[] = [];
      let index = 0;
      while (index < input.length) {
        if (inPaste) {
          const end = input.indexOf(PASTE_END, index);
          const text = input.slice(index, end === -1 ? input.length : end);
          if (text !== "") keys.push(key("paste", text));
          if (end === -1) break;
          inPaste = false;
          index = end + PASTE_END.length;
          continue;
        }
        if (input.startsWith(PASTE_START, index)) {
          inPaste = true;
          index += PASTE_START.length;
          continue;
        }
        const next = readOne(input, index);
        if (next.key !== undefined) keys.push(next.key);
        index = next.end;
      }
      return keys;
    },
  };
}

function key(name: KeyName, text = "", meta = false): KeyPress {
  return { name, text, meta };
}

/** One key (or a run of plain text) starting at `start`, and where the next begins. */
function readOne(input: string, start: number): { key: KeyPress | undefined; end: number } {
  const character = input[start] ?? "";
  if (character === ESCAPE) return readEscape(input, start);
  if (isControl(character)) return { key: controlKey(character), end: start + 1 };
  let end = start + 1;
  while (end < input.length && !isControl(input[end] ?? "")) end += 1;
  return { key: key("text", input.slice(start, end)), end };
}

function isControl(character: string): boolean {
  const code = character.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}

/** A control character as a key; undefined for one with no meaning here (dropped). */
function controlKey(character: string): KeyPress | undefined {
  if (character === "\r") return key("return");
  if (character === "\n") return key("newline");
  if (character === "\t") return key("tab");
  if (character === "\u007f" || character === "\b") return key("backspace");
  const code = character.charCodeAt(0);
  if (code >= 1 && code <= 26) return key("ctrl", String.fromCharCode(code + 96));
  return undefined;
}

const CSI_FINAL_KEYS: Record<string, KeyName> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  Z: "backtab",
};
const TILDE_KEYS: Record<string, KeyName> = {
  "1": "home",
  "7": "home",
  "4": "end",
  "8": "end",
  "3": "delete",
};

function readEscape(input: string, start: number): { key: KeyPress | undefined; end: number } {
  const next = input[start + 1];
  if (next === undefined) return { key: key("escape"), end: start + 1 };
  if (next === "[" || next === "O") return readSequence(input, start, false);
  if (next === ESCAPE) {
    // ESC ESC [ A: some terminals send Alt+arrow as an escaped sequence.
    const third = input[start + 2];
    if (third === "[" || third === "O") return readSequence(input, start + 1, true);
    return { key: key("escape"), end: start + 1 };
  }
  // Alt plus a key: Alt+Enter is a newline, Alt+Backspace deletes a word, others keep the letter.
  if (!isControl(next)) return { key: key("text", next, true), end: start + 2 };
  const alt = controlKey(next);
  if (alt?.name === "return") return { key: key("newline"), end: start + 2 };
  return { key: alt === undefined ? undefined : { ...alt, meta: true }, end: start + 2 };
}

/** CSI (ESC [ params final) or SS3 (ESC O final); an unknown one is consumed and dropped. */
function readSequence(
  input: string,
  start: number,
  meta: boolean,
): { key: KeyPress | undefined; end: number } {
  const isSs3 = input[start + 1] === "O";
  let end = start + 2;
  while (end < input.length && /[0-9;:<=>?]/.test(input[end] ?? "")) end += 1;
  const final = input[end];
  if (final === undefined) return { key: undefined, end: input.length };
  const parameters = input.slice(start + 2, end).split(";");
  end += 1;
  // xterm's modifier parameter: 1 + (shift 1, alt 2, ctrl 4, meta 8).
  const modifier = Number(parameters[1] ?? "1") - 1;
  const withAlt = meta || (modifier > 0 && (modifier & 10) !== 0);
  const name = final === "~" && !isSs3 ? TILDE_KEYS[parameters[0] ?? ""] : CSI_FINAL_KEYS[final];
  return { key: name === undefined ? undefined : key(name, "", withAlt), end };
}
