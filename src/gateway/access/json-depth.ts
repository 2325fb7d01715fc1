// JSON nesting is capped before anything walks the value: the schema check, token estimates and
// engines recurse, and a body nested thousands deep would overflow the stack (a 500) there.
import { WireError } from "../wire/wire-error.ts";

/** Far deeper than any real tool schema or input, far shallower than a stack overflow. */
export const MAX_JSON_DEPTH = 128;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Throws a 400 when `text` nests objects and arrays deeper than `maxDepth`; one linear scan. It
 * runs before JSON.parse because V8 parses deep nesting about a hundred times slower per byte.
 */
export function checkJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): void {
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = closingQuote(text, index);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) {
        throw new WireError(
          "invalid_request",
          `The JSON nests objects and arrays more than ${maxDepth} deep; flatten it (tool parameter schemas included).`,
          { wireCode: "json_too_deep" },
        );
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
}

/**
 * The index of the quote that ends the string opened at `openQuote` (text.length when none).
 * Strings are most of a request's bytes (its input text): indexOf skips them an order of
 * magnitude faster than a character loop. A quote ends the string when an even number of
 * backslashes precedes it.
 */
function closingQuote(text: string, openQuote: number): number {
  let index = openQuote;
  for (;;) {
    index = text.indexOf('"', index + 1);
    if (index === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(index - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return index;
  }
}
