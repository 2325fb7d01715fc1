// A light highlighter for one line of a fenced code block: comments, strings, numbers and the
// keywords of the languages models write most. Line by line, so a comment or string spanning
// lines is only coloured on its first line; good enough to read code, never a parser.

export type CodeTokenKind = "plain" | "keyword" | "string" | "number" | "comment";

export interface CodeToken {
  text: string;
  kind: CodeTokenKind;
}

const KEYWORDS = new Set(
  (
    "abstract as async await break case catch class const continue def default del do elif else " +
    "enum except export extends false finally fn for from func function go if impl implements " +
    "import in interface is lambda let match mod module mut new nil None not null of or and pass " +
    "package private protected pub public raise readonly return self static struct super switch " +
    "this throw True true False try type typeof undefined use var void while with yield"
  ).split(" "),
);
const SHELL_KEYWORDS = new Set(
  "if then else elif fi for do done while case esac in function".split(" "),
);

/** Languages whose line comments start with `#`, or `--`; the others use `//` and block comments. */
const HASH_COMMENT_LANGUAGES = new Set(
  "python py sh bash shell zsh console ruby rb yaml yml toml perl r dockerfile makefile".split(" "),
);
const DASH_COMMENT_LANGUAGES = new Set(["sql", "lua", "haskell", "hs"]);
const SHELL_LANGUAGES = new Set("sh bash shell zsh console".split(" "));

const STRING = /"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?/.source;
const NUMBER = /\b0x[\da-f]+\b|\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b/.source;
const WORD = /[A-Za-z_$][\w$]*/.source;

function commentPattern(language: string): string {
  if (HASH_COMMENT_LANGUAGES.has(language)) return /#.*$/.source;
  if (DASH_COMMENT_LANGUAGES.has(language)) return /--.*$/.source;
  return /\/\/.*$|\/\*.*?(?:\*\/|$)/.source;
}

const tokenPatterns = new Map<string, RegExp>();

function tokenPattern(language: string): RegExp {
  let pattern = tokenPatterns.get(language);
  if (pattern === undefined) {
    pattern = new RegExp(`(${commentPattern(language)})|(${STRING})|(${NUMBER})|(${WORD})`, "gi");
    tokenPatterns.set(language, pattern);
  }
  return pattern;
}

export function highlightCodeLine(line: string, language: string): CodeToken[] {
  const lower = language.toLowerCase();
  const keywords = SHELL_LANGUAGES.has(lower) ? SHELL_KEYWORDS : KEYWORDS;
  const tokens: CodeToken[] = [];
  const push = (text: string, kind: CodeTokenKind): void => {
    const last = tokens.at(-1);
    if (last?.kind === kind) last.text += text;
    else if (text !== "") tokens.push({ text, kind });
  };
  let index = 0;
  for (const match of line.matchAll(tokenPattern(lower))) {
    const [text, comment, string, number, word] = match;
    push(line.slice(index, match.index), "plain");
    if (comment !== undefined) push(text, "comment");
    else if (string !== undefined) push(text, "string");
    else if (number !== undefined) push(text, "number");
    else push(text, word !== undefined && keywords.has(word) ? "keyword" : "plain");
    index = match.index + text.length;
  }
  push(line.slice(index), "plain");
  return tokens;
}
