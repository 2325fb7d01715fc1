// What a sandboxed command sees, as bwrap's mounts in order: the system roots read-only (and
// nothing else of the machine), private empty /tmp, /var/tmp, /run and homes, secrets under /etc
// covered, the toolchain's folders bound read-only, the workspace writable, its protected paths
// read-only again, and Spark's own folder hidden wherever it lies. A later mount overrides what an
// earlier one made of the same path, so the order is the policy; doctor prints the same list
// (src/cli/doctor/command-view-report.ts).
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  EMPTIED_SYSTEM_SECRET_FOLDERS,
  LINKED_SYSTEM_FILES,
  MASKED_SYSTEM_FILES,
  SSH_HOST_KEY_FOLDER,
} from "./hidden-system-paths.ts";
import { HOME_TOOLCHAIN_FOLDERS } from "./home-toolchain-allow-list.ts";
import { isInside } from "./protected-workspace-paths.ts";
import { PRIVATE_FOLDERS, SANDBOX_LINKS, SYSTEM_ROOTS } from "./system-roots.ts";
import { realDirectory, toolchainFolders } from "./toolchain-folders.ts";

export type SandboxMount =
  | { kind: "read-only"; source: string; target: string; reason: string }
  | { kind: "writable"; target: string; reason: string }
  | { kind: "empty"; target: string; reason: string }
  | { kind: "masked"; target: string; reason: string }
  /** A symbolic link made inside the sandbox: `target` points to `linkTarget`. */
  | { kind: "link"; linkTarget: string; target: string; reason: string }
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
  /** process.execPath: the installation of the Node.js running Spark is shown. */
  executablePath?: string;
  /** Where toolchain variables (NVM_DIR, CARGO_HOME, JAVA_HOME, …) are read. */
  environment?: Readonly<Record<string, string | undefined>>;
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
  return {
    workspaceRoot,
    protectedReadOnly,
    sparkHome,
    homes,
    searchPath: process.env.PATH,
    executablePath: process.execPath,
    environment: process.env,
  };
}

export function sandboxMounts(input: SandboxViewInput): SandboxMount[] {
  const mounts: SandboxMount[] = [
    ...systemRootMounts(),
    { kind: "devices", target: "/dev", reason: "a minimal /dev with a private /dev/shm" },
    { kind: "processes", target: "/proc", reason: "this command's processes only" },
  ];
  for (const folder of PRIVATE_FOLDERS)
    mounts.push({ kind: "empty", target: folder, reason: reasonForEmptied(folder, []) });
  for (const link of SANDBOX_LINKS)
    mounts.push({
      kind: "link",
      linkTarget: link.target,
      target: link.path,
      reason: "as on most systems",
    });
  const hidden = (candidate: string): boolean => isHidden(mounts, candidate);
  const workspace = input.workspaceRoot;
  const homes = unique(input.homes.map(resolvedOrSelf).filter((home) => home !== "/"));
  const sparkFolders = [resolvedOrSelf(input.sparkHome)];

  // Each home is there, empty, so programs find $HOME; Spark's folder around the workspace is
  // emptied before the workspace is bound into it.
  const emptied = [...homes, ...sparkFolders.filter((folder) => isInside(folder, workspace))];
  for (const folder of outermost(existingDirectories(emptied)))
    mounts.push({ kind: "empty", target: folder, reason: reasonForEmptied(folder, homes) });
  for (const folder of existingDirectories(EMPTIED_SYSTEM_SECRET_FOLDERS))
    if (!hidden(folder)) mounts.push({ kind: "empty", target: folder, reason: "secrets" });
  for (const file of [...MASKED_SYSTEM_FILES, ...sshHostKeys()])
    if (isPlainFile(file) && !hidden(file))
      mounts.push({ kind: "masked", target: file, reason: "secrets" });
  for (const file of LINKED_SYSTEM_FILES) {
    const target = linkedFileTarget(file);
    if (target !== undefined && !hidden(file) && hidden(target))
      mounts.push({ kind: "read-only", source: target, target, reason: `${file} links here` });
  }

  const toolchain = toolchainFolders({
    homes,
    sparkFolders,
    workspaceRoot: workspace,
    searchPath: input.searchPath,
    executablePath: input.executablePath,
    environment: input.environment ?? {},
  });
  for (const folder of toolchain) {
    if (!(hidden(folder.target) || hidden(folder.source)) || isInside(workspace, folder.target))
      continue;
    mounts.push({ kind: "read-only", ...folder });
  }

  mounts.push({ kind: "writable", target: workspace, reason: "the workspace" });
  for (const protectedPath of input.protectedReadOnly) {
    // Elsewhere a system root shows it already; inside the workspace or a hidden folder only a
    // mount makes it read-only, or visible at all (a worktree's git dir under /tmp).
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

/** The system roots that exist here: folders bound read-only, links made again as links. */
function systemRootMounts(): SandboxMount[] {
  return SYSTEM_ROOTS.flatMap((root): SandboxMount[] => {
    try {
      const entry = lstatSync(root);
      if (entry.isSymbolicLink())
        return [
          { kind: "link", linkTarget: readlinkSync(root), target: root, reason: "the system" },
        ];
      if (entry.isDirectory())
        return [{ kind: "read-only", source: root, target: root, reason: "the system" }];
    } catch {
      // Not on this machine.
    }
    return [];
  });
}

/** Whether the last mount that covers `candidate` hides it. */
export function isHidden(mounts: readonly SandboxMount[], candidate: string): boolean {
  for (let index = mounts.length - 1; index >= 0; index--) {
    const mount = mounts[index];
    if (mount === undefined || !isInside(mount.target, candidate)) continue;
    return mount.kind === "empty" || mount.kind === "masked";
  }
  // Outside every mount: absent.
  return true;
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
  if (homes.includes(folder)) return "home directories";
  if (folder === "/tmp" || folder === "/var/tmp") return "private temporary files";
  if (folder === "/run") return "daemons' sockets";
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
