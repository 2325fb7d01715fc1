// What a sandboxed command sees, as bwrap's mounts in order: the system read-only, the folders
// where users and daemons keep files and sockets emptied (homes, /run, /tmp, …), secrets under /etc
// covered, a home's toolchain folders bound back read-only, the workspace writable, its protected
// paths read-only again, and Spark's own folder hidden wherever it lies. A later mount overrides
// what an earlier one made of the same path, so the order is the policy; doctor prints the same
// list (describe-sandbox-view.ts).
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  EMPTIED_SYSTEM_FOLDERS,
  EMPTIED_SYSTEM_SECRET_FOLDERS,
  LINKED_SYSTEM_FILES,
  MASKED_SYSTEM_FILES,
  SSH_HOST_KEY_FOLDER,
} from "./hidden-system-paths.ts";
import { HOME_TOOLCHAIN_FOLDERS } from "./home-toolchain-allow-list.ts";
import { isInside } from "./protected-workspace-paths.ts";

export type SandboxMount =
  | { kind: "read-only"; source: string; target: string; reason: string }
  | { kind: "writable"; target: string; reason: string }
  | { kind: "empty"; target: string; reason: string }
  | { kind: "masked"; target: string; reason: string }
  | { kind: "devices"; target: string; reason: string }
  | { kind: "processes"; target: string; reason: string };

export interface SandboxViewInput {
  /** Real path of the workspace root: the only place a command may write. */
  workspaceRoot: string;
  /** Real paths bound read-only after the workspace (its .git, hooks, .spark, …). */
  protectedReadOnly: readonly string[];
  /** Spark's own folder (config with keys, sessions, models): never visible. */
  sparkHome: string;
  /** Home directories to hide besides /home and /root ($HOME, the account's home). */
  homes: readonly string[];
  /** PATH: its folders inside a hidden one are bound back read-only (the user's toolchain). */
  searchPath: string | undefined;
}

/** The input for this process: its $HOME, its account's home, SPARK_HOME as resolved by config. */
export function sandboxViewInputFor(
  workspaceRoot: string,
  protectedReadOnly: readonly string[],
  sparkHome: string,
): SandboxViewInput {
  const homes = [process.env.HOME, os.homedir(), accountHome()].filter(
    (home): home is string => home !== undefined && path.isAbsolute(home),
  );
  return { workspaceRoot, protectedReadOnly, sparkHome, homes, searchPath: process.env.PATH };
}

export function sandboxMounts(input: SandboxViewInput): SandboxMount[] {
  const mounts: SandboxMount[] = [
    { kind: "read-only", source: "/", target: "/", reason: "the system" },
    { kind: "devices", target: "/dev", reason: "a minimal /dev with a private /dev/shm" },
    { kind: "processes", target: "/proc", reason: "this command's processes only" },
  ];
  const hidden = (candidate: string): boolean => isHidden(mounts, candidate);
  const workspace = input.workspaceRoot;
  const homes = unique(input.homes.map(resolvedOrSelf).filter((home) => home !== "/"));
  const sparkFolders = [resolvedOrSelf(input.sparkHome)];
  // Never to be shown again by a later bind: a bind whose source holds one of these is skipped.
  const secretRoots = [...homes, ...sparkFolders];

  // Homes beside /home and /root, so doctor lists them together.
  const emptiedFirst = [
    ...EMPTIED_SYSTEM_FOLDERS.slice(0, 2),
    ...homes,
    ...EMPTIED_SYSTEM_FOLDERS.slice(2),
    // Spark's folder around the workspace: hidden before the workspace is bound into it.
    ...sparkFolders.filter((folder) => isInside(folder, workspace)),
  ];
  for (const folder of outermost(existingDirectories(emptiedFirst)))
    mounts.push({ kind: "empty", target: folder, reason: reasonForEmptied(folder, homes) });
  for (const folder of existingDirectories(EMPTIED_SYSTEM_SECRET_FOLDERS))
    if (!hidden(folder)) mounts.push({ kind: "empty", target: folder, reason: "secrets" });
  for (const file of [...MASKED_SYSTEM_FILES, ...sshHostKeys()])
    if (isPlainFile(file) && !hidden(file))
      mounts.push({ kind: "masked", target: file, reason: "secrets" });
  for (const file of LINKED_SYSTEM_FILES) {
    const target = linkedFileTarget(file);
    if (target !== undefined && hidden(target))
      mounts.push({ kind: "read-only", source: target, target, reason: `${file} links here` });
  }

  for (const folder of toolchainFolders(homes, input.searchPath)) {
    if (!(hidden(folder.target) || hidden(folder.source)) || isInside(workspace, folder.target))
      continue;
    if (secretRoots.some((secret) => isInside(folder.source, secret))) continue;
    if (folder.source === "/" || isInside(folder.source, workspace)) continue;
    mounts.push({ kind: "read-only", ...folder });
  }

  mounts.push({ kind: "writable", target: workspace, reason: "the workspace" });
  for (const protectedPath of input.protectedReadOnly) {
    // Elsewhere the read-only root shows it already; inside the workspace or a hidden folder
    // only a mount makes it read-only, or visible at all (a worktree's git dir under /tmp).
    if (isInside(workspace, protectedPath) || hidden(protectedPath))
      mounts.push({
        kind: "read-only",
        source: protectedPath,
        target: protectedPath,
        reason: "git's and Spark's files",
      });
  }

  for (const home of homes.filter((candidate) => isInside(workspace, candidate)))
    hideHomeInsideWorkspace(mounts, home);
  for (const folder of existingDirectories(sparkFolders))
    if (!hidden(folder))
      mounts.push({
        kind: "empty",
        target: folder,
        reason: "Spark's folder: its keys and session logs",
      });
  return mounts;
}

/** Whether the last mount that covers `candidate` hides it. */
export function isHidden(mounts: readonly SandboxMount[], candidate: string): boolean {
  for (let index = mounts.length - 1; index >= 0; index--) {
    const mount = mounts[index];
    if (mount === undefined || !isInside(mount.target, candidate)) continue;
    return mount.kind === "empty" || mount.kind === "masked";
  }
  return true;
}

interface ToolchainFolder {
  /** Real path. */
  source: string;
  /** Where the command looks for it (under its $HOME, or as PATH names it). */
  target: string;
  reason: string;
}

function toolchainFolders(homes: readonly string[], searchPath: string | undefined) {
  const folders: ToolchainFolder[] = [];
  const add = (target: string, reason: string): void => {
    const source = realDirectory(target);
    if (source !== undefined && !folders.some((folder) => folder.target === target))
      folders.push({ source, target, reason });
  };
  for (const home of homes)
    for (const relative of HOME_TOOLCHAIN_FOLDERS)
      add(path.join(home, relative), "toolchain on the allow-list");
  for (const entry of (searchPath ?? "").split(path.delimiter))
    if (path.isAbsolute(entry)) add(path.normalize(entry), "a folder on PATH");
  return folders;
}

/**
 * A workspace that is a home, or holds one: its dot-entries are the user's config and keys, so
 * each one not on the allow-list is hidden again; allowed folders inside a hidden one come back.
 */
function hideHomeInsideWorkspace(mounts: SandboxMount[], home: string): void {
  const allowed = HOME_TOOLCHAIN_FOLDERS.map((relative) => path.join(home, relative));
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(".") || name === ".git" || name === ".spark") continue;
    const entry = path.join(home, name);
    if (allowed.includes(entry)) continue;
    const real = realpathOrUndefined(entry);
    if (real === undefined || isHidden(mounts, real)) continue;
    mounts.push({
      kind: statSync(real).isDirectory() ? "empty" : "masked",
      target: real,
      reason: "the home's own files",
    });
    for (const inside of allowed.filter((folder) => isInside(entry, folder))) {
      const source = realDirectory(inside);
      if (source !== undefined)
        mounts.push({
          kind: "read-only",
          source,
          target: inside,
          reason: "toolchain on the allow-list",
        });
    }
  }
}

function reasonForEmptied(folder: string, homes: readonly string[]): string {
  if (homes.includes(folder) || folder === "/home" || folder === "/root") return "home directories";
  if (folder === "/tmp" || folder === "/var/tmp") return "private temporary files";
  if (folder === "/run" || folder === "/var/run") return "daemons' sockets";
  if (EMPTIED_SYSTEM_FOLDERS.includes(folder)) return "mounted drives and services' data";
  return "Spark's folder: its keys and session logs";
}

function sshHostKeys(): string[] {
  try {
    return readdirSync(SSH_HOST_KEY_FOLDER)
      .filter((name) => name.endsWith("_key"))
      .map((name) => path.join(SSH_HOST_KEY_FOLDER, name));
  } catch {
    return [];
  }
}

function linkedFileTarget(file: string): string | undefined {
  try {
    if (!lstatSync(file).isSymbolicLink()) return undefined;
    const target = realpathSync(file);
    return statSync(target).isFile() ? target : undefined;
  } catch {
    return undefined;
  }
}

function isPlainFile(candidate: string): boolean {
  try {
    return lstatSync(candidate).isFile();
  } catch {
    return false;
  }
}

/** Real paths of those that are directories (bwrap cannot mount a tmpfs on a missing one). */
function existingDirectories(candidates: readonly string[]): string[] {
  return unique(
    candidates.flatMap((candidate) => {
      const real = realDirectory(candidate);
      return real === undefined || real === "/" ? [] : [real];
    }),
  );
}

function realDirectory(candidate: string): string | undefined {
  const real = realpathOrUndefined(candidate);
  try {
    return real !== undefined && statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function realpathOrUndefined(candidate: string): string | undefined {
  try {
    return realpathSync(candidate);
  } catch {
    return undefined;
  }
}

function resolvedOrSelf(candidate: string): string {
  return realpathOrUndefined(candidate) ?? path.resolve(candidate);
}

/** Drops a folder inside another of the list: the outer one's empty folder covers it. */
function outermost(folders: readonly string[]): string[] {
  return folders.filter(
    (folder) => !folders.some((other) => other !== folder && isInside(other, folder)),
  );
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function accountHome(): string | undefined {
  try {
    return os.userInfo().homedir;
  } catch {
    return undefined;
  }
}
