// A small POSIX shell-word tokenizer for command approval: splits a command into the words the
// shell would pass to the program, or names the first shell feature that makes it more than one
// plain command (substitution, expansion, redirection, chaining, grouping, globs...).

export type ShellCommandParse =
  { kind: "simple"; words: string[] } | { kind: "complex"; feature: string };

const BLANKS = new Set([" ", "\t"]);
const GLOB_CHARACTERS = new Set(["*", "?", "["]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** What an unquoted special character starts, or undefined when it is literal there. */
function unquotedFeature(character: string, next: string | undefined): string | undefined {
  switch (character) {
    case "`":
      return "command substitution `…`";
    case "$":
      if (next === "(") return "command substitution $(…)";
      if (next === "{") return "parameter expansion ${…}";
      return "variable expansion $NAME";
    case ";":
      return "command chaining ;";
    case "&":
      if (next === "&") return "command chaining &&";
      if (next === ">") return "redirection &>";
      return "background job &";
    case "|":
      return next === "|" ? "command chaining ||" : "pipe |";
    case "<":
      return next === "(" ? "process substitution <(…)" : "redirection <";
    case ">":
      return next === "(" ? "process substitution >(…)" : "redirection >";
    case "(":
    case ")":
      return "subshell ( )";
    case "{":
    case "}":
      return "grouping or brace expansion { }";
    default:
      return GLOB_CHARACTERS.has(character) ? `glob ${character}` : undefined;
  }
}

/**
 * Parses `command` as /bin/sh would read one simple command. Conservative: anything the shell
 * could expand, redirect or chain makes it complex, even where a shell would treat it as literal
 * (a lone `$`), so a simple answer means the words are exactly what the program receives.
 */
export function parseShellCommand(command: string): ShellCommandParse {
  const words: string[] = [];
  let word: string | undefined;
  const complex = (feature: string): ShellCommandParse => ({ kind: "complex", feature });
  for (let index = 0; index < command.length; index += 1) {
    const character = command[index] as string;
    const next = command[index + 1];
    if (BLANKS.has(character)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    if (character === "\n" || character === "\r") return complex("newline (a second command)");
    if (character < " " || character === "\u007f") return complex("a control character");
    if (character === "\\") {
      if (next === undefined) return complex("a trailing backslash");
      if (next === "\n" || next === "\r") return complex("line continuation \\");
      word = (word ?? "") + next;
      index += 1;
      continue;
    }
    if (character === "'") {
      const end = command.indexOf("'", index + 1);
      if (end === -1) return complex("an unterminated ' quote");
      word = (word ?? "") + command.slice(index + 1, end);
      index = end;
      continue;
    }
    if (character === '"') {
      let quoted = "";
      let closed = false;
      for (index += 1; index < command.length; index += 1) {
        const inner = command[index] as string;
        if (inner === '"') {
          closed = true;
          break;
        }
        if (inner === "$") return complex('expansion $ inside "…"');
        if (inner === "`") return complex('command substitution `…` inside "…"');
        if (inner === "\\") {
          const escaped = command[index + 1];
          if (escaped === "\n" || escaped === "\r") return complex("line continuation \\");
          if (escaped === '"' || escaped === "\\") {
            quoted += escaped;
            index += 1;
            continue;
          }
        }
        if (inner === "\n" || inner === "\r") return complex("newline (a second command)");
        quoted += inner;
      }
      if (!closed) return complex('an unterminated " quote');
      word = (word ?? "") + quoted;
      continue;
    }
    if (word === undefined && character === "#") return complex("comment #");
    if (word === undefined && character === "~") return complex("tilde expansion ~");
    const feature = unquotedFeature(character, next);
    if (feature !== undefined) return complex(feature);
    word = (word ?? "") + character;
  }
  if (word !== undefined) words.push(word);
  if (words.length === 0) return complex("no command");
  // `NAME=value program` changes the program's environment (NODE_OPTIONS, LD_PRELOAD...).
  if (ASSIGNMENT.test(command.trimStart())) return complex("environment assignment NAME=value");
  return { kind: "simple", words };
}

/** Quotes every word so /bin/sh passes it through untouched: no expansion of any kind. */
export function quoteShellWords(words: readonly string[]): string {
  return words.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(" ");
}
