// The short list of commands that run without asking because they only read the workspace (as
// Codex's known-safe list): `git status`, `ls`, `cat README.md`, `rg TODO src`... Their options are
// read as each program reads them (bundles, attached values) and must be on its allow-list; every
// operand and option value must stay inside the workspace. Anything else asks.
import fs from "node:fs";
import path from "node:path";
import { isPathInside } from "../edits/is-path-inside.ts";
import { parseOptions, type OptionParse } from "./command-options.ts";
import { parseFindArguments } from "../tools/find-expression.ts";
import { GIT_GLOBAL_OPTIONS, GIT_SUBCOMMAND_OPTIONS } from "./read-only-git-options.ts";
import { PROGRAM_OPTIONS } from "./read-only-program-options.ts";

type ArgumentsReader = (argumentsAfterProgram: readonly string[]) => OptionParse;

const refused = (word: string): OptionParse => ({ ok: false, refused: word });
const everyWordIsText: ArgumentsReader = (rest) => ({
  ok: true,
  parsed: { values: [], operands: [...rest] },
});

/** head and tail read an operand such as `+5f` as an old-style option (`-f`: wait for more). */
function withoutPlusOperands(reader: ArgumentsReader): ArgumentsReader {
  return (rest) => {
    const parse = reader(rest);
    if (!parse.ok) return parse;
    const plus = parse.parsed.operands.find((operand) => operand.startsWith("+"));
    return plus === undefined ? parse : refused(plus);
  };
}

/** `git [--no-pager] <subcommand> <its options and operands>`; branch names no operand. */
const gitArguments: ArgumentsReader = (rest) => {
  let index = 0;
  while (GIT_GLOBAL_OPTIONS.has(rest[index] ?? "")) index += 1;
  const subcommand = rest[index];
  const table = subcommand === undefined ? undefined : GIT_SUBCOMMAND_OPTIONS[subcommand];
  if (table === undefined) return refused(subcommand ?? "git without a subcommand");
  const parse = parseOptions(rest.slice(index + 1), table);
  if (parse.ok && subcommand === "branch" && parse.parsed.operands.length > 0) {
    return refused(`git branch ${parse.parsed.operands[0] ?? ""}`);
  }
  return parse;
};

const withTable = (program: string): ArgumentsReader => {
  const table = PROGRAM_OPTIONS[program];
  if (table === undefined) throw new Error(`no option table for ${program}`);
  return (rest) => parseOptions(rest, table);
};

const PROGRAMS: Record<string, ArgumentsReader> = {
  ls: withTable("ls"),
  pwd: (rest) => (rest.length === 0 ? everyWordIsText(rest) : refused(rest[0] as string)),
  cat: withTable("cat"),
  head: withoutPlusOperands(withTable("head")),
  tail: withoutPlusOperands(withTable("tail")),
  wc: withTable("wc"),
  nl: withTable("nl"),
  // echo, true and false read no options that matter and open nothing.
  echo: everyWordIsText,
  true: everyWordIsText,
  false: everyWordIsText,
  which: withTable("which"),
  stat: withTable("stat"),
  du: withTable("du"),
  grep: withTable("grep"),
  rg: withTable("rg"),
  find: parseFindArguments,
  git: gitArguments,
};

/** The documented list, for `spark doctor` and the docs. */
export const READ_ONLY_COMMANDS = [
  ...Object.keys(PROGRAMS).filter((program) => program !== "git"),
  ...Object.keys(GIT_SUBCOMMAND_OPTIONS).map((subcommand) => `git ${subcommand}`),
];

/**
 * A word that names a path must stay inside: no absolute path, no `..`, no `~`, and when it
 * exists, its real path is inside the workspace and it is not a hard-linked file (whose other
 * names may be anywhere). Patterns and revisions are checked alike: one that happens to name
 * an outside path is refused, which costs a question at most.
 */
function staysInside(word: string, cwd: string, workspaceRoot: string): boolean {
  // `--x=/abs` read as an operand (after `--`, or a value that looks like an option).
  const candidate =
    word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
  if (candidate.startsWith("-") || candidate === "") return true;
  if (path.isAbsolute(candidate) || candidate.startsWith("~")) return false;
  if (candidate.split(/[\\/]/).includes("..")) return false;
  const absolute = path.resolve(cwd, candidate);
  let real: string;
  let status: fs.Stats;
  try {
    real = fs.realpathSync(absolute);
    status = fs.statSync(real);
  } catch {
    // Not a path that exists (a pattern, a revision): nothing outside to read through it.
    return true;
  }
  return (
    isPathInside(fs.realpathSync(workspaceRoot), real) && !(status.isFile() && status.nlink > 1)
  );
}

/** Why the parsed command is not on the read-only list, or undefined when it is. */
export function readOnlyCommandProblem(
  words: readonly string[],
  cwd: string,
  workspaceRoot: string,
): string | undefined {
  const [program, ...rest] = words;
  const reader = program === undefined ? undefined : PROGRAMS[program];
  if (reader === undefined) return `${program ?? "nothing"} is not on the read-only list`;
  const parse = reader(rest);
  if (!parse.ok) return `${parse.refused} is not among ${program}'s read-only options`;
  const { values, operands } = parse.parsed;
  const outside = [...values, ...operands].find((word) => !staysInside(word, cwd, workspaceRoot));
  return outside === undefined ? undefined : `${outside} may name a path outside the workspace`;
}

/** Whether the parsed command is on the read-only list with arguments that stay inside. */
export function isReadOnlyCommand(
  words: readonly string[],
  cwd: string,
  workspaceRoot: string,
): boolean {
  return readOnlyCommandProblem(words, cwd, workspaceRoot) === undefined;
}
