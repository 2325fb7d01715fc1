// The folders outside the workspace and the system roots that a command needs to run the user's
// toolchain, each with why: a home's allow-listed folders, PATH's folders, the installation of the
// Node.js running Spark, and the toolchains the environment names. A folder that holds a home or
// Spark's folder, lies in Spark's folder, or holds the workspace (its siblings would show) is left
// out; so is a toolchain variable pointing at a home's dot-folder off the allow-list.
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { HOME_TOOLCHAIN_FOLDERS } from "./home-toolchain-allow-list.ts";
import { isInside } from "./protected-workspace-paths.ts";
import { TOOLCHAIN_ENVIRONMENT_FOLDERS } from "./toolchain-environment-folders.ts";

export interface ToolchainFolder {
  /** Real path. */
  source: string;
  /** Where the command looks for it (under its $HOME, or as PATH or a variable names it). */
  target: string;
  reason: string;
}

export interface ToolchainSources {
  /** Real paths of the homes (hidden but for the allow-list). */
  homes: readonly string[];
  /** Real paths of Spark's folders: never shown. */
  sparkFolders: readonly string[];
  workspaceRoot: string;
  searchPath: string | undefined;
  /** process.execPath: its installation (bin's parent) is shown, npm and all. */
  executablePath: string | undefined;
  environment: Readonly<Record<string, string | undefined>>;
}

export function toolchainFolders(sources: ToolchainSources): ToolchainFolder[] {
  const folders: ToolchainFolder[] = [];
  const { homes, sparkFolders, workspaceRoot } = sources;
  const add = (target: string, reason: string, strict: boolean): void => {
    const source = realDirectory(target);
    if (source === undefined || source === "/") return;
    if (folders.some((folder) => folder.target === target)) return;
    if ([...homes, ...sparkFolders].some((secret) => isInside(source, secret))) return;
    if (sparkFolders.some((folder) => isInside(folder, source))) return;
    if (isInside(source, workspaceRoot) && source !== workspaceRoot) return;
    if (strict && homes.some((home) => isUnlistedDotFolder(home, source))) return;
    folders.push({ source, target, reason });
  };
  for (const home of homes)
    for (const relative of HOME_TOOLCHAIN_FOLDERS)
      add(path.join(home, relative), "toolchain on the allow-list", false);
  for (const entry of (sources.searchPath ?? "").split(path.delimiter))
    if (path.isAbsolute(entry)) add(path.normalize(entry), "a folder on PATH", false);
  const installation = executableInstallation(sources.executablePath);
  if (installation !== undefined) add(installation, "the Node.js running Spark", true);
  for (const [variable, relatives] of Object.entries(TOOLCHAIN_ENVIRONMENT_FOLDERS)) {
    const value = sources.environment[variable];
    if (value === undefined || value === "") continue;
    for (const entry of value.split(path.delimiter))
      if (path.isAbsolute(entry))
        for (const relative of relatives)
          add(path.join(path.normalize(entry), relative), `toolchain named by ${variable}`, true);
  }
  return folders;
}

/** `<prefix>/bin/node` -> `<prefix>` (lib/node_modules/npm lives beside bin); else its folder. */
function executableInstallation(executablePath: string | undefined): string | undefined {
  if (executablePath === undefined || !path.isAbsolute(executablePath)) return undefined;
  let real: string;
  try {
    real = realpathSync(executablePath);
  } catch {
    return undefined;
  }
  const folder = path.dirname(real);
  return path.basename(folder) === "bin" ? path.dirname(folder) : folder;
}

/** A path under a home's dot-entry that the allow-list does not name (~/.ssh, ~/.jdks/…). */
function isUnlistedDotFolder(home: string, candidate: string): boolean {
  if (!isInside(home, candidate) || candidate === home) return false;
  const first = path.relative(home, candidate).split(path.sep)[0] ?? "";
  if (!first.startsWith(".")) return false;
  return !HOME_TOOLCHAIN_FOLDERS.some((relative) => isInside(path.join(home, relative), candidate));
}

export function realDirectory(candidate: string): string | undefined {
  try {
    const real = realpathSync(candidate);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}
