// A replayed typing session for the FIM scenario: lines of a real file deleted and typed back one
// key at a time, with the pauses of a typist and the requests an editor would send after a debounce.
import { readFile } from "node:fs/promises";

export interface Keystroke {
  /** When the key is pressed, from the start of the session. */
  atMs: number;
  prefix: string;
  suffix: string;
}

export interface TypingSessionOptions {
  path: string;
  keystrokes: number;
  /** Prefix kept before the typed region: a fixed, line-aligned window, so its cache holds. */
  prefixChars: number;
  /** Suffix sent after the cursor (what follows is re-evaluated on every keystroke). */
  suffixChars: number;
}

// Gaps between keys: a fast typist's rhythm (40–180 ms), varied but reproducible.
function keyGapMs(index: number): number {
  return 40 + ((index * 73) % 141);
}

/** Types back the `keystrokes` characters that start a third of the way into the file. */
export async function typingSession(options: TypingSessionOptions): Promise<Keystroke[]> {
  const text = await readFile(options.path, "utf8");
  const regionStart = text.indexOf("\n", Math.floor(text.length / 3)) + 1;
  const windowStart = text.lastIndexOf("\n", regionStart - options.prefixChars) + 1;
  const keystrokes: Keystroke[] = [];
  let atMs = 0;
  for (let typed = 1; typed <= options.keystrokes; typed++) {
    atMs += keyGapMs(typed);
    const cursor = regionStart + typed;
    keystrokes.push({
      atMs,
      prefix: text.slice(windowStart, cursor),
      // The line under the cursor's rest is what the user deleted and retypes: not sent.
      suffix: text.slice(
        text.indexOf("\n", regionStart + options.keystrokes) + 1,
        text.indexOf("\n", regionStart + options.keystrokes) + 1 + options.suffixChars,
      ),
    });
  }
  return keystrokes;
}

/** The keystrokes an editor sends a request for: those not followed by another within `debounceMs`. */
export function debounced(keystrokes: readonly Keystroke[], debounceMs: number): Keystroke[] {
  return keystrokes.filter((keystroke, index) => {
    const next = keystrokes[index + 1];
    return next === undefined || next.atMs - keystroke.atMs >= debounceMs;
  });
}
