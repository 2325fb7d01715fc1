// A read-only git command that runs unasked runs with the repository's code-running config
// neutralised (issue 32, finding 4): a repository delivered with its .git, or one a command
// planted, may name programs that git status, diff, log, show and blame would start.
//
// The config keys (git-config(1), gitattributes(5), git 2.39) that run a program during status,
// diff, log, show, blame, ls-files or branch, and what is done about each:
// - core.fsmonitor (the hook runs on every index read): false.
// - core.hooksPath (post-index-change runs when status refreshes the index): /dev/null, and
//   --no-optional-locks so status writes no index at all.
// - diff.external, diff.<driver>.command: blanked, and --no-ext-diff.
// - diff.<driver>.textconv: blanked, and --no-textconv (log -p, show, blame, diff).
// - filter.<driver>.clean, .smudge, .process (status and diff clean files to compare them):
//   blanked, and .required false so a blank one is skipped rather than fatal.
// - merge.<driver>.driver (log -m with log.diffMerges=remerge merges again): blanked, and
//   log.diffMerges set back to separate.
// - core.pager, pager.<cmd>: --no-pager, core.pager=cat, GIT_PAGER=cat.
// - gpg.program, gpg.<format>.program (log.showSignature, or %G? in a format): true, and
//   log.showSignature=false.
// - core.sshCommand, credential.helper, core.askPass, remote helpers and uploadpack (a partial
//   clone fetches missing objects lazily): protocol.allow=never, sshCommand false, helpers
//   reset, GIT_TERMINAL_PROMPT=0, GIT_NO_LAZY_FETCH=1 (git 2.45 and later).
// - Submodules (status and diff start git in each, under the submodule's own config, whose
//   drivers are not listed here): --ignore-submodules=all, status.submoduleSummary=false.
// - man.viewer, man.<tool>.cmd, help.browser, web.browser (`--help`): --help is not allowed.
// Left alone: editors, difftool, mergetool, sequence.editor, core.alternateRefsCommand,
// uploadpack.packObjectsHook, gpg.ssh.defaultKeyCommand: no command on the list starts them.
//
// Config given in the environment (GIT_CONFIG_COUNT) outranks every config file, reaches every
// git process the command starts, and names keys with any characters. Driver names are the
// repository's own, so they are listed first (`git config`, which runs nothing) and each is
// blanked; core.worktree (which would show files outside the workspace) makes the command ask.
import { execFile } from "node:child_process";
import { commandEnvironment } from "../sandbox/command-environment.ts";
import { GIT_GLOBAL_OPTIONS } from "./read-only-git-options.ts";

export type NeutralGitCommand = { ok: true; words: string[] } | { ok: false; reason: string };

const FIXED_CONFIG: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.sshCommand", "false"],
  ["core.askPass", ""],
  ["diff.external", ""],
  ["credential.helper", ""],
  ["protocol.allow", "never"],
  ["gpg.program", "true"],
  ["gpg.openpgp.program", "true"],
  ["gpg.x509.program", "true"],
  ["gpg.ssh.program", "true"],
  ["log.showSignature", "false"],
  ["log.diffMerges", "separate"],
  ["status.submoduleSummary", "false"],
  ["diff.ignoreSubmodules", "all"],
  ["submodule.recurse", "false"],
];

/** Each driver key that names a program, by the section that defines the driver. */
const DRIVER_KEYS: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  filter: [
    ["clean", ""],
    ["smudge", ""],
    ["process", ""],
    ["required", "false"],
  ],
  diff: [
    ["textconv", ""],
    ["command", ""],
  ],
  merge: [["driver", ""]],
};

/** Options each subcommand takes right after its name; the user's options cannot undo them. */
const INSERTED_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  status: ["--ignore-submodules=all"],
  diff: ["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"],
  log: ["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"],
  show: ["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"],
  blame: ["--no-textconv"],
};

/** Variables that would point git elsewhere or at a program, when `[sandbox] env` passes them. */
const UNSET_VARIABLES = [
  ...["GIT_DIR", "GIT_WORK_TREE", "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF", "GIT_SSH"],
  ...["GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS"],
];

const FIXED_VARIABLES = [
  ...["GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0"],
  "GIT_NO_LAZY_FETCH=1",
];

/** More drivers than this is no repository's own setup: ask instead of a huge command line. */
const MAX_DRIVERS = 200;
const LIST_TIMEOUT_MS = 10_000;

/** The config keys to override for the repository at `cwd`, or why the command must ask. */
async function configOverrides(
  cwd: string,
  environment: Record<string, string>,
  signal: AbortSignal,
): Promise<{ ok: true; keys: [string, string][] } | { ok: false; reason: string }> {
  const listed = await listConfigNames(cwd, environment, signal);
  if (!listed.ok) return listed;
  if (listed.names.includes("core.worktree")) {
    return { ok: false, reason: "the repository's config sets core.worktree" };
  }
  const drivers = new Set<string>();
  for (const name of listed.names) {
    const section = name.slice(0, name.indexOf("."));
    if (DRIVER_KEYS[section] === undefined) continue;
    const driver = name.slice(section.length + 1, name.lastIndexOf("."));
    if (driver !== "") drivers.add(`${section}.${driver}`);
  }
  if (drivers.size > MAX_DRIVERS) {
    return { ok: false, reason: `the repository's config names ${drivers.size} drivers` };
  }
  const keys: [string, string][] = FIXED_CONFIG.map(([key, value]) => [key, value]);
  for (const driver of drivers) {
    const section = driver.slice(0, driver.indexOf("."));
    for (const [key, value] of DRIVER_KEYS[section] ?? []) keys.push([`${driver}.${key}`, value]);
  }
  return { ok: true, keys };
}

/** The names of the driver keys and core.worktree in every config git reads at `cwd`. */
function listConfigNames(
  cwd: string,
  environment: Record<string, string>,
  signal: AbortSignal,
): Promise<{ ok: true; names: string[] } | { ok: false; reason: string }> {
  const pattern = "^(filter|diff|merge)\\..+\\.|^core\\.worktree$";
  return new Promise((resolve) => {
    execFile(
      "git",
      ["config", "--null", "--name-only", "--get-regexp", pattern],
      { cwd, env: environment, signal, timeout: LIST_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout) => {
        // Exit code 1: no such key anywhere.
        if (error !== null && error.code !== 1) {
          resolve({
            ok: false,
            reason: `git could not read the repository's config (${error.message.trim()})`,
          });
          return;
        }
        resolve({ ok: true, names: stdout.split("\0").filter((name) => name !== "") });
      },
    );
  });
}

/**
 * `git …` from the read-only list as the words to run instead: under `env` with the overrides,
 * `--no-pager --no-optional-locks`, and the subcommand's neutralising options.
 */
export async function neutralGitCommand(
  words: readonly string[],
  cwd: string,
  passEnvironment: readonly string[],
  signal: AbortSignal,
): Promise<NeutralGitCommand> {
  let index = 1;
  while (GIT_GLOBAL_OPTIONS.has(words[index] ?? "")) index += 1;
  const subcommand = words[index];
  if (words[0] !== "git" || subcommand === undefined) {
    return { ok: false, reason: "not a git command from the read-only list" };
  }
  const environment = commandEnvironment(process.env, passEnvironment, {
    GIT_OPTIONAL_LOCKS: "0",
  });
  const overrides = await configOverrides(cwd, environment, signal);
  if (!overrides.ok) {
    return { ok: false, reason: `${overrides.reason}, so git may run a program it names` };
  }
  const configVariables = overrides.keys.flatMap(([key, value], position) => [
    `GIT_CONFIG_KEY_${position}=${key}`,
    `GIT_CONFIG_VALUE_${position}=${value}`,
  ]);
  return {
    ok: true,
    words: [
      "env",
      ...UNSET_VARIABLES.flatMap((name) => ["-u", name]),
      ...FIXED_VARIABLES,
      `GIT_CONFIG_COUNT=${overrides.keys.length}`,
      ...configVariables,
      "git",
      "--no-pager",
      "--no-optional-locks",
      ...words.slice(1, index),
      subcommand,
      ...(INSERTED_OPTIONS[subcommand] ?? []),
      ...words.slice(index + 1),
    ],
  };
}
