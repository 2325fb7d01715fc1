// The repositories whose working tree holds a folder, with their git directories and the folders
// `core.hooksPath` names, read from their config files without running git. The one reader both
// the edit tools (protected-path.ts) and the command sandbox (protected-workspace-paths.ts) ask,
// so they protect the same folders. It errs towards more: every value of the key counts (git
// uses the last), and every include is followed whatever its condition (`includeIf "onbranch:"`
// holds after the next checkout, `gitdir:` wherever the repository is moved).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gitConfigEntries, type GitConfigEntry } from "./git-config-values.ts";
import { gitDirectoriesLinkedFrom, isGitDirectory, realOrSelf } from "./git-metadata.ts";

/** git refuses to include deeper than this (config.c MAX_INCLUDE_DEPTH). */
const MAX_INCLUDE_DEPTH = 10;

export interface HooksFolder {
  /** Real (or, when missing, absolute) path of the folder `core.hooksPath` names. */
  folder: string;
  /** The config file that names it (an included file when the key is set there). */
  configFile: string;
}

export interface RepositoryAround {
  /** The folder holding `.git` (a bare repository: the git directory itself). */
  worktree: string;
  /** Its `.git` folder, or the git directory a `.git` file names and that one's common dir. */
  gitDirectories: string[];
  hooksFolders: HooksFolder[];
}

/**
 * Every repository whose working tree holds `directory` (it or a folder above it has `.git`),
 * nearest first: an outer repository's hooks folder may lie inside an inner one's tree. Its
 * config is `config` and `config.worktree` in each of its git directories, plus the user's and
 * the system's config, where a relative `core.hooksPath` is relative to each working tree.
 */
export function repositoriesHolding(directory: string): RepositoryAround[] {
  let shared: HooksPathValue[] | undefined;
  const repositories: RepositoryAround[] = [];
  for (let folder = path.resolve(directory); ; folder = path.dirname(folder)) {
    const gitDirectories = repositoryGitDirectories(folder);
    if (gitDirectories.length > 0) {
      shared ??= sharedConfigFiles().flatMap((file) => hooksPathValues(file));
      const values = [
        ...gitDirectories.flatMap((gitDirectory) => [
          ...hooksPathValues(path.join(gitDirectory, "config")),
          ...hooksPathValues(path.join(gitDirectory, "config.worktree")),
        ]),
        ...shared,
      ];
      repositories.push({
        worktree: folder,
        gitDirectories,
        hooksFolders: values.map(({ value, configFile }) => ({
          folder: realOrSelf(resolveConfigPath(folder, value)),
          configFile,
        })),
      });
    }
    if (path.dirname(folder) === folder) return repositories;
  }
}

/**
 * The folder's `.git` folder, or the git directories its `.git` file names, or the folder itself
 * when it is a git directory (a bare repository, whose hooks run there); [] when none.
 */
function repositoryGitDirectories(folder: string): string[] {
  const dotGit = path.join(folder, ".git");
  if (isDirectory(dotGit)) return [dotGit];
  const linked = gitDirectoriesLinkedFrom(folder);
  if (linked.length > 0) return linked;
  return isGitDirectory(folder) ? [folder] : [];
}

interface HooksPathValue {
  value: string;
  configFile: string;
}

/** `core.hooksPath` values of a config file and of every file it includes, at any depth. */
function hooksPathValues(configFile: string, depth = 0): HooksPathValue[] {
  const text = readConfigFile(configFile);
  if (text === undefined) return [];
  const values: HooksPathValue[] = [];
  for (const entry of gitConfigEntries(text)) {
    if (entry.value.trim() === "") continue;
    if (entry.section === "core" && entry.subsection === undefined && entry.key === "hookspath") {
      values.push({ value: entry.value, configFile });
    } else if (isInclude(entry) && depth < MAX_INCLUDE_DEPTH) {
      const included = resolveConfigPath(path.dirname(configFile), entry.value);
      values.push(...hooksPathValues(included, depth + 1));
    }
  }
  return values;
}

/** `[include] path` or `[includeIf "<condition>"] path`, the condition not evaluated. */
function isInclude(entry: GitConfigEntry): boolean {
  if (entry.key !== "path") return false;
  if (entry.section === "include") return entry.subsection === undefined;
  return entry.section === "includeif" && entry.subsection !== undefined;
}

/** A config file's text, through symlinks as git reads it; undefined when there is none. */
function readConfigFile(file: string): string | undefined {
  try {
    if (!fs.statSync(file).isFile()) return undefined;
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function isDirectory(candidate: string): boolean {
  try {
    return fs.statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

/** Global and system config: a relative `core.hooksPath` there applies to every repository. */
function sharedConfigFiles(): string[] {
  const home = os.homedir();
  const xdg = process.env["XDG_CONFIG_HOME"] || path.join(home, ".config");
  return [
    process.env["GIT_CONFIG_GLOBAL"] || path.join(home, ".gitconfig"),
    path.join(xdg, "git", "config"),
    process.env["GIT_CONFIG_SYSTEM"] || "/etc/gitconfig",
  ];
}

/**
 * git's pathname rules: `~/` is the home folder; a relative path is relative to `base` (the
 * working tree for core.hooksPath, the including file's folder for an include).
 */
function resolveConfigPath(base: string, value: string): string {
  if (value === "~" || value.startsWith("~/")) return path.join(os.homedir(), value.slice(1));
  return path.resolve(base, value);
}
