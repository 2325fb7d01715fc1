// Reuse of an earlier completion while the user types what it predicted: with prefix "fo" and
// ghost text "o(bar)", typing "o" leaves "(bar)" to show without asking the server again. Typing
// an opener through it ("o(") also reuses it, though the editor's auto-close put ")" after the
// cursor: the rest ("bar)") then replaces that closer, so accepting it leaves one ")", not two.

export interface PredictedCompletion {
  documentId: string;
  prefix: string;
  suffix: string;
  /** The completion's text so far (the whole text once its stream ended). */
  text: string;
}

export type ReuseVerdict =
  /**
   * `replaceLength`: how many characters after the cursor (closers the editor auto-inserted) the
   * remaining text replaces; 0 when it is inserted at the cursor.
   */
  | { kind: "reuse"; remaining: string; replaceLength: number }
  /** Still compatible, but the typed text runs past what has streamed so far: wait for more. */
  | { kind: "pending" }
  | { kind: "unrelated" };

export function judgeReuse(
  earlier: PredictedCompletion,
  current: { documentId: string; prefix: string; suffix: string },
  earlierFinished: boolean,
): ReuseVerdict {
  if (earlier.documentId !== current.documentId) return { kind: "unrelated" };
  if (!current.prefix.startsWith(earlier.prefix)) return { kind: "unrelated" };
  const typed = current.prefix.slice(earlier.prefix.length);
  const autoClosed = autoClosedAfterCursor(typed, earlier.suffix, current.suffix);
  if (autoClosed === undefined) return { kind: "unrelated" };
  if (earlier.text.startsWith(typed)) {
    const remaining = earlier.text.slice(typed.length);
    if (remaining !== "") {
      // The rest replaces the auto-closed characters only when it holds them itself (VS Code then
      // shows what it adds around them as ghost text); a rest without them goes before them.
      const replaceLength = isSubsequence(autoClosed, remaining) ? autoClosed.length : 0;
      return { kind: "reuse", remaining, replaceLength };
    }
    return earlierFinished ? { kind: "unrelated" } : { kind: "pending" };
  }
  if (!earlierFinished && typed.startsWith(earlier.text)) return { kind: "pending" };
  return { kind: "unrelated" };
}

const CLOSER_OF: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
const QUOTES = "\"'`";

/**
 * The characters between the cursor and the earlier suffix, when they are closers the editor
 * auto-inserted for openers in `typed` ("" when the suffix is unchanged); undefined when the
 * suffix changed in any other way.
 */
function autoClosedAfterCursor(
  typed: string,
  earlierSuffix: string,
  suffix: string,
): string | undefined {
  if (suffix === earlierSuffix) return "";
  if (!suffix.endsWith(earlierSuffix)) return undefined;
  const inserted = suffix.slice(0, suffix.length - earlierSuffix.length);
  // Auto-closing may skip some openers (a quote before a word), never invent or reorder closers.
  return isSubsequence(inserted, unclosedClosers(typed)) ? inserted : undefined;
}

/** The closers `typed` leaves open, innermost first: "foo([" → "])". */
function unclosedClosers(typed: string): string {
  const open: string[] = [];
  for (const character of typed) {
    const closer = CLOSER_OF[character];
    if (open.at(-1) === character) open.pop();
    else if (closer !== undefined) open.push(closer);
    else if (QUOTES.includes(character)) open.push(character);
  }
  return open.reverse().join("");
}

function isSubsequence(needle: string, haystack: string): boolean {
  let found = 0;
  for (const character of haystack) if (character === needle[found]) found++;
  return found >= needle.length;
}
