// Decides which paths inside the workspace the agent never writes, and says why in words the model
// can act on: git's metadata (git-metadata.ts), the folder git runs hooks from when
// `core.hooksPath` moves them out of `.git` (husky, lefthook), `.husky/`, and `.spark/`, whose
// config.toml picks the model and settings of the user's next Spark session.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gitConfigValues } from "./git-config-values.ts";
import {
  gitDirectoriesLinkedFrom,
  gitMetadataReason,
  normalizeSegment,
  readIfFile,
  realOrSelf,
} from "./git-metadata.ts";

/** Folder names refused at any depth, compared as a case-insensitive file system would. */
const PROTECTED_FOLDERS: Record<string, string> = {
  ".husky":
    "is inside .husky, the folder husky has git run hooks from on commit, push and checkout",
  ".spark":
    "is inside .spark, Spark's project configuration, which chooses the model and settings of the user's next Spark session",
};

/**
 * Why the agent must not create, change, move or delete `absolutePath` (a real path: symlinks of
 * its existing ancestors resolved), or undefined when it may.
 */
export function protectedPathReason(absolutePath: string): string | undefined {
  const git = gitMetadataReason(absolutePath);
  if (git !== undefined) return `${git}, which git runs commands from (hooks, config)`;
  for (const segment of absolutePath.split(path.sep)) {
    const reason = PROTECTED_FOLDERS[normalizeSegment(segment)];
    if (reason !== undefined) return reason;
  }
  for (const hooks of configuredHooksFolders(absolutePath)) {
    if (isInsideAnySpelling(hooks.folder, absolutePath)) {
      return `is inside ${hooks.folder}, the folder git runs hooks from (core.hooksPath in ${hooks.configFile})`;
    }
  }
  return undefined;
}

interface HooksFolder {
  /** Real (or, when missing, absolute) path of the folder `core.hooksPath` names. */
  folder: string;
  configFile: string;
}

/**
 * The `core.hooksPath` folders of every repository whose working tree contains `absolutePath`
 * (an outer repository's hooks may live inside a nested one), from the repository's own config
 * (a `.git` folder, or the git directory a `.git` file names and its common directory) and the
 * user's and system's config, where a relative value is relative to each working tree.
 */
function configuredHooksFolders(absolutePath: string): HooksFolder[] {
  const shared = sharedConfigFiles().flatMap(hooksPathValues);
  const folders: HooksFolder[] = [];
  for (let directory = path.dirname(absolutePath); ; directory = path.dirname(directory)) {
    const configFiles = repositoryConfigFiles(directory);
    const values =
      configFiles.length === 0 ? [] : [...configFiles.flatMap(hooksPathValues), ...shared];
    for (const { value, configFile } of values) {
      folders.push({ folder: realOrSelf(resolveConfigPath(directory, value)), configFile });
    }
    if (path.dirname(directory) === directory) return folders;
  }
}

function hooksPathValues(configFile: string): { value: string; configFile: string }[] {
  const text = readIfFile(configFile);
  if (text === undefined) return [];
  return gitConfigValues(text, "core", "hooksPath")
    .filter((value) => value.trim() !== "")
    .map((value) => ({ value, configFile }));
}

/** Config files of the repository whose working tree is `directory`; [] when it is none. */
function repositoryConfigFiles(directory: string): string[] {
  const dotGit = path.join(directory, ".git");
  const gitDirectories = isDirectory(dotGit) ? [dotGit] : gitDirectoriesLinkedFrom(directory);
  return gitDirectories.flatMap((gitDirectory) => [
    path.join(gitDirectory, "config"),
    path.join(gitDirectory, "config.worktree"),
  ]);
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

/** git's pathname rules: `~/` is the home folder, a relative path is relative to the worktree. */
function resolveConfigPath(worktree: string, value: string): string {
  if (value === "~" || value.startsWith("~/")) return path.join(os.homedir(), value.slice(1));
  return path.resolve(worktree, value);
}

/** Whether `candidate` is `folder` or inside it, under case folding and trailing-dot trimming. */
function isInsideAnySpelling(folder: string, candidate: string): boolean {
  const normalize = (absolute: string) =>
    absolute
      .split(path.sep)
      .map(normalizeSegment)
      .filter((segment) => segment !== "");
  const folderSegments = normalize(folder);
  const candidateSegments = normalize(candidate);
  return (
    folderSegments.length <= candidateSegments.length &&
    folderSegments.every((segment, index) => candidateSegments[index] === segment)
  );
}
