// The short list of commands that run without asking because they only read the workspace (as
// Codex's known-safe list): `git status`, `ls`, `cat README.md`, `rg TODO src`... Every path they
// are given must stay inside the workspace, and no option that writes, runs a program or follows
// links outside is allowed. Anything else asks.
import fs from "node:fs";
import path from "node:path";
import { isPathInside } from "../edits/is-path-inside.ts";

type ArgumentsCheck = (argumentsAfterProgram: readonly string[]) => boolean;

const anyArguments: ArgumentsCheck = () => true;
const noArguments: ArgumentsCheck = (rest) => rest.length === 0;

function withoutOptions(banned: readonly string[]): ArgumentsCheck {
  return (rest) =>
    rest.every(
      (word) => !banned.some((option) => word === option || word.startsWith(`${option}=`)),
    );
}

/** git options that write files, run programs or read config given on the command line. */
const GIT_BANNED = ["--output", "-o", "--ext-diff", "--textconv", "--exec", "--upload-pack"];
const gitReading: ArgumentsCheck = withoutOptions(GIT_BANNED);
/** `git branch` only lists: a branch name would create one, -d/-m/-c change them. */
const gitBranchListing: ArgumentsCheck = (rest) =>
  rest.every((word) =>
    ["-a", "--all", "-r", "--remotes", "-v", "-vv", "--list", "--show-current"].includes(word),
  );

const GIT_SUBCOMMANDS: Record<string, ArgumentsCheck> = {
  status: gitReading,
  diff: gitReading,
  log: gitReading,
  show: gitReading,
  blame: gitReading,
  "ls-files": gitReading,
  branch: gitBranchListing,
};

const PROGRAMS: Record<string, ArgumentsCheck> = {
  ls: anyArguments,
  pwd: noArguments,
  cat: anyArguments,
  head: anyArguments,
  tail: withoutOptions(["-f", "-F", "--follow"]),
  wc: withoutOptions(["--files0-from"]),
  nl: anyArguments,
  echo: anyArguments,
  true: anyArguments,
  false: anyArguments,
  which: anyArguments,
  stat: anyArguments,
  du: withoutOptions(["-L", "--dereference", "--files0-from"]),
  grep: withoutOptions(["-R", "--dereference-recursive", "-f", "--file"]),
  rg: withoutOptions([
    "--pre",
    "--pre-glob",
    "-z",
    "--search-zip",
    "-L",
    "--follow",
    "--hostname-bin",
    "-f",
    "--file",
  ]),
  find: withoutOptions([
    ...["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0"],
    ...["-fprintf", "-L", "-follow", "-H"],
  ]),
  git: (rest) => {
    const [subcommand, ...more] = rest;
    const check = subcommand === undefined ? undefined : GIT_SUBCOMMANDS[subcommand];
    return check !== undefined && check(more);
  },
};

/** The documented list, for `spark doctor` and the docs. */
export const READ_ONLY_COMMANDS = [
  ...Object.keys(PROGRAMS).filter((program) => program !== "git"),
  ...Object.keys(GIT_SUBCOMMANDS).map((subcommand) => `git ${subcommand}`),
];

/**
 * A word that names a path must stay inside: no absolute path, no `..`, no `~`, and when it
 * exists, its real path is inside the workspace and it is not a hard-linked file (whose other
 * names may be anywhere). Option values after `=` are checked the same way.
 */
function staysInside(word: string, cwd: string, workspaceRoot: string): boolean {
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

/** Whether the parsed command is on the read-only list with arguments that stay inside. */
export function isReadOnlyCommand(
  words: readonly string[],
  cwd: string,
  workspaceRoot: string,
): boolean {
  const [program, ...rest] = words;
  const check = program === undefined ? undefined : PROGRAMS[program];
  if (check === undefined || !check(rest)) return false;
  return rest.every((word) => staysInside(word, cwd, workspaceRoot));
}
