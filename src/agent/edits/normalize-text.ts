// The matching ladder's rungs and the text normalisation behind each one. Normalising keeps a map
// from every normalised character back to the original, so a fuzzy match edits the real bytes.

/** Rungs from strictest to loosest; an edit reports the first one that matched. */
export type MatchRung = "exact" | "trailing-whitespace" | "whitespace" | "unicode";

export const MATCH_RUNGS: readonly MatchRung[] = [
  "exact",
  "trailing-whitespace",
  "whitespace",
  "unicode",
];

export interface NormalizedText {
  text: string;
  /** For each index of `text` (and one past its end), the index in the original text. */
  sourceIndex: Uint32Array;
}

// Typographic punctuation that models usually type as ASCII. Every mapping is one UTF-16 unit to
// one, so offsets stay aligned.
const UNICODE_EQUIVALENTS = new Map<string, string>([
  ...[..."\u2010\u2011\u2012\u2013\u2014\u2015\u2212"].map((dash) => [dash, "-"] as const),
  ...[..."\u2018\u2019\u201A\u201B"].map((quote) => [quote, "'"] as const),
  ...[..."\u201C\u201D\u201E\u201F"].map((quote) => [quote, '"'] as const),
  ...[..."\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000"].map(
    (space) => [space, " "] as const,
  ),
]);

const HORIZONTAL_WHITESPACE = new Set([" ", "\t", "\r", "\f", "\v"]);

function isHorizontalWhitespace(character: string): boolean {
  return HORIZONTAL_WHITESPACE.has(character);
}

export function mapUnicodePunctuation(text: string): string {
  let mapped = "";
  for (const character of text) mapped += UNICODE_EQUIVALENTS.get(character) ?? character;
  return mapped;
}

/** Normalises one line (no "\n" inside) for comparison at a rung. */
export function normalizeLine(line: string, rung: MatchRung): string {
  switch (rung) {
    case "exact":
      return line;
    case "trailing-whitespace":
      return line.replace(/[ \t\r\f\v]+$/, "");
    case "whitespace":
      return collapseWhitespace(line);
    case "unicode":
      return collapseWhitespace(mapUnicodePunctuation(line));
    default:
      return rung satisfies never;
  }
}

function collapseWhitespace(line: string): string {
  return line.replace(/^[ \t\r\f\v]+|[ \t\r\f\v]+$/g, "").replace(/[ \t\r\f\v]+/g, " ");
}

/** Normalises multi-line text at a rung, keeping the map back to original offsets. */
export function normalizeText(text: string, rung: MatchRung): NormalizedText {
  const source = rung === "unicode" ? mapUnicodePunctuation(text) : text;
  const characters: string[] = [];
  const indexes: number[] = [];
  let lineStart = 0;
  while (lineStart <= source.length) {
    const newline = source.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? source.length : newline;
    appendNormalizedLine(source, lineStart, lineEnd, rung, characters, indexes);
    if (newline === -1) break;
    characters.push("\n");
    indexes.push(newline);
    lineStart = newline + 1;
  }
  const sourceIndex = new Uint32Array(indexes.length + 1);
  sourceIndex.set(indexes);
  sourceIndex[indexes.length] = text.length;
  return { text: characters.join(""), sourceIndex };
}

function appendNormalizedLine(
  source: string,
  start: number,
  end: number,
  rung: MatchRung,
  characters: string[],
  indexes: number[],
): void {
  let first = start;
  let last = end;
  if (rung !== "exact") {
    while (last > first && isHorizontalWhitespace(source.charAt(last - 1))) last -= 1;
  }
  const collapse = rung === "whitespace" || rung === "unicode";
  if (collapse) {
    while (first < last && isHorizontalWhitespace(source.charAt(first))) first += 1;
  }
  let previousWasWhitespace = false;
  for (let index = first; index < last; index += 1) {
    const character = source.charAt(index);
    if (collapse && isHorizontalWhitespace(character)) {
      if (!previousWasWhitespace) {
        characters.push(" ");
        indexes.push(index);
      }
      previousWasWhitespace = true;
      continue;
    }
    previousWasWhitespace = false;
    characters.push(character);
    indexes.push(index);
  }
}
