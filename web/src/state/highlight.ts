// Syntax highlighting for code blocks: one small tokenizer for the C-like, shell and Python
// families (comments, strings, numbers, keywords). It returns tokens; components render each as
// a text node inside a span, never as markup.

export type TokenKind = "plain" | "comment" | "string" | "number" | "keyword";

export interface CodeToken {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set(
  (
    "abstract as async await break case catch class const continue def default del do elif else " +
    "enum export extends false fi fn for from func function go if impl import in interface let " +
    "match mod new nil None null package pass private protected pub public raise return self " +
    "static struct super switch then this throw true True False try type typeof use var void " +
    "while with yield echo done esac local readonly"
  ).split(" "),
);

const HASH_COMMENT_LANGUAGES = new Set([
  "py",
  "python",
  "sh",
  "bash",
  "shell",
  "zsh",
  "yaml",
  "yml",
  "toml",
  "rb",
  "ruby",
  "dockerfile",
  "makefile",
  "r",
]);

export function highlightCode(code: string, language: string): CodeToken[] {
  const hashComments = HASH_COMMENT_LANGUAGES.has(language.toLowerCase());
  const tokens: CodeToken[] = [];
  let plain = "";
  const push = (kind: TokenKind, text: string): void => {
    if (plain !== "") tokens.push({ kind: "plain", text: plain });
    plain = "";
    tokens.push({ kind, text });
  };
  let index = 0;
  while (index < code.length) {
    const rest = code.slice(index, index + 2);
    const character = code[index] ?? "";
    let end = -1;
    let kind: TokenKind = "plain";
    if (rest === "//" || (hashComments && character === "#")) {
      end = lineEnd(code, index);
      kind = "comment";
    } else if (rest === "/*") {
      const close = code.indexOf("*/", index + 2);
      end = close < 0 ? code.length : close + 2;
      kind = "comment";
    } else if (character === '"' || character === "'" || character === "`") {
      end = stringEnd(code, index, character);
      kind = "string";
    } else if (/[0-9]/.test(character) && !/[\w$]/.test(code[index - 1] ?? "")) {
      end =
        index +
        (/^(0x[0-9a-f_]+|[0-9][0-9_]*(\.[0-9_]+)?(e[+-]?[0-9]+)?)/i.exec(code.slice(index))?.[0]
          .length ?? 1);
      kind = "number";
    } else if (/[A-Za-z_$]/.test(character) && !/[\w$]/.test(code[index - 1] ?? "")) {
      const word = /^[A-Za-z_$][\w$]*/.exec(code.slice(index))?.[0] ?? character;
      if (KEYWORDS.has(word)) {
        push("keyword", word);
      } else {
        plain += word;
      }
      index += word.length;
      continue;
    }
    if (end > index) {
      push(kind, code.slice(index, end));
      index = end;
      continue;
    }
    plain += character;
    index += 1;
  }
  if (plain !== "") tokens.push({ kind: "plain", text: plain });
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
