// Reads a `find` command line (GNU findutils 4.9) against an allow-list: starting points, then an
// expression of tests and operators. Left out: -H, -L and -follow (follow links out), -exec,
// -execdir, -ok, -okdir (run programs), -delete, -fls, -fprint* (write), -files0-from (reads
// names from another file), -xtype (looks at what a link points to), -D and -O.
import type { OptionParse } from "../approval/command-options.ts";

/** Operators and tests that take no value. */
const NO_VALUE = new Set([
  ...["(", ")", "!", ",", "-not", "-a", "-and", "-o", "-or"],
  ...["-depth", "-daystart", "-ignore_readdir_race", "-noignore_readdir_race", "-mount"],
  ...["-xdev", "-noleaf", "-empty", "-executable", "-readable", "-writable", "-nouser"],
  ...["-nogroup", "-true", "-false", "-print", "-print0", "-ls", "-prune", "-quit"],
  ...["-help", "--help", "-version", "--version"],
]);

/** Tests and actions that take one value (a pattern, a number, a format or a file to compare). */
const ONE_VALUE = new Set([
  ...["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"],
  ...["-lname", "-ilname", "-regextype", "-type", "-maxdepth", "-mindepth", "-mtime", "-mmin"],
  ...["-atime", "-amin", "-ctime", "-cmin", "-used", "-newer", "-anewer", "-cnewer", "-size"],
  ...["-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-samefile", "-fstype"],
  ...["-printf", "-context"],
]);

/** `-newerXY` compares with a file's (or, for `t`, a date's) time. */
const NEWER_XY = /^-newer[aBcmt][aBcmt]$/;

function startsExpression(word: string): boolean {
  return word.startsWith("-") || word === "(" || word === "!" || word === ")" || word === ",";
}

/** The starting points and every value of `args`, or the first word not allowed. */
export function parseFindArguments(args: readonly string[]): OptionParse {
  const values: string[] = [];
  const operands: string[] = [];
  let index = 0;
  // Global options come first; only -P (the default: never follow links) is allowed.
  while (args[index] === "-P") index += 1;
  while (index < args.length && !startsExpression(args[index] as string)) {
    operands.push(args[index] as string);
    index += 1;
  }
  for (; index < args.length; index += 1) {
    const word = args[index] as string;
    if (NO_VALUE.has(word)) continue;
    if (ONE_VALUE.has(word) || NEWER_XY.test(word)) {
      const value = args[index + 1];
      if (value === undefined) return { ok: false, refused: `${word} is missing its value` };
      values.push(value);
      index += 1;
      continue;
    }
    return { ok: false, refused: word };
  }
  return { ok: true, parsed: { values, operands } };
}
