// Syntax highlighting for fenced code, as typed spans: comments, strings, numbers and the keywords
// of the languages models write most. Every surface renders the spans its own way (a span per token
// in the browser and the editor, a coloured <Text> in the terminal); none renders them as markup.
// Good enough to read code, never a parser. A whole block keeps a comment or template string that
// spans lines; the terminal, which draws a line at a time, highlights each line alone.

export type CodeTokenKind = "plain" | "keyword" | "string" | "number" | "comment";

export interface CodeToken {
  kind: CodeTokenKind;
  text: string;
}

const KEYWORDS = new Set(
  (
    "abstract and as async await break case catch class const continue def default del do elif " +
    "else enum except export extends false finally fn for from func function go if impl " +
    "implements import in interface is lambda let match mod module mut new nil None not null of " +
    "or package pass private protected pub public raise readonly return self static struct " +
    "super switch this throw True true False try type typeof undefined use var void while with " +
    "yield"
  ).split(" "),
);
const SHELL_KEYWORDS = new Set(
  "if then else elif fi for do done while until case esac in function local readonly export return echo".split(
    " ",
  ),
);

/** Languages whose line comments start with `#`, or `--`; the others use `//` and block comments. */
const HASH_COMMENT_LANGUAGES = new Set(
  "python py sh bash shell zsh console ruby rb yaml yml toml perl r dockerfile makefile".split(" "),
);
const DASH_COMMENT_LANGUAGES = new Set(["sql", "lua", "haskell", "hs"]);
const SHELL_LANGUAGES = new Set("sh bash shell zsh console".split(" "));

const NUMBER = /^(?:0x[0-9a-f_]+|[0-9][0-9_]*(?:\.[0-9_]+)?(?:e[+-]?[0-9]+)?)/i;
const WORD = /^[A-Za-z_$][\w$]*/;

export function highlightCode(code: string, language: string): CodeToken[] {
  const lower = language.toLowerCase();
  const keywords = SHELL_LANGUAGES.has(lower) ? SHELL_KEYWORDS : KEYWORDS;
  const lineComment = HASH_COMMENT_LANGUAGES.has(lower)
    ? "#"
    : DASH_COMMENT_LANGUAGES.has(lower)
      ? "--"
      : "//";
  const blockComments = lineComment === "//";
  const tokens: CodeToken[] = [];
  const push = (kind: CodeTokenKind, text: string): void => {
    if (text === "") return;
    const last = tokens.at(-1);
    if (last?.kind === kind) last.text += text;
    else tokens.push({ kind, text });
  };
  let index = 0;
  while (index < code.length) {
    const character = code[index] ?? "";
    const afterWord = /[\w$]/.test(code[index - 1] ?? "");
    let end = -1;
    let kind: CodeTokenKind = "plain";
    if (code.startsWith(lineComment, index)) {
      end = lineEnd(code, index);
      kind = "comment";
    } else if (blockComments && code.startsWith("/*", index)) {
      const close = code.indexOf("*/", index + 2);
      end = close < 0 ? code.length : close + 2;
      kind = "comment";
    } else if (character === '"' || character === "'" || character === "`") {
      end = stringEnd(code, index, character);
      kind = "string";
    } else if (/[0-9]/.test(character) && !afterWord) {
      end = index + (NUMBER.exec(code.slice(index, index + 64))?.[0].length ?? 1);
      kind = "number";
    } else if (/[A-Za-z_$]/.test(character) && !afterWord) {
      const word = WORD.exec(code.slice(index, index + 256))?.[0] ?? character;
      push(keywords.has(word) ? "keyword" : "plain", word);
      index += word.length;
      continue;
    }
    if (end > index) {
      push(kind, code.slice(index, end));
      index = end;
      continue;
    }
    push("plain", character);
    index += 1;
  }
  return tokens;
}

function lineEnd(code: string, from: number): number {
  const newline = code.indexOf("\n", from);
  return newline < 0 ? code.length : newline;
}

function stringEnd(code: string, from: number, quote: string): number {
  for (let index = from + 1; index < code.length; index += 1) {
    const character = code[index];
    if (character === "\\") {
      index += 1;
      continue;
    }
    if (character === quote) return index + 1;
    // Only template strings span lines; an unclosed quote ends at the line's end.
    if (character === "\n" && quote !== "`") return index;
  }
  return code.length;
}
