// What a sandboxed command sees, for `spark doctor`: the sandbox's mounts for a workspace at the
// current folder (the ones a command run here gets), grouped as people read them: read-only,
// links, writable, hidden; that nothing else of the machine is there; the home folders the
// allow-list shows; and the seccomp filter (or that this architecture has none).
import { realpathSync } from "node:fs";
import type { CommandSandbox } from "../../agent/sandbox/command-sandbox.ts";
import { HOME_TOOLCHAIN_FOLDERS } from "../../agent/sandbox/home-toolchain-allow-list.ts";
import { findProtectedPaths } from "../../agent/sandbox/protected-workspace-paths.ts";
import { sandboxMounts, sandboxViewInputFor } from "../../agent/sandbox/sandbox-mounts.ts";
import { missingFilterDescription, seccompFilterFor } from "../../agent/sandbox/seccomp-filter.ts";

export interface ViewEntry {
  /** Hidden: an emptied folder or a covered file. Link: made inside, pointing to `source`. */
  access: "read-only" | "writable" | "hidden" | "link";
  path: string;
  /** Where a read-only path's contents come from, when that is not the path itself. */
  source?: string;
  reason: string;
}

export interface CommandViewReport {
  /** The workspace the view was worked out for (the current folder). */
  workspace: string;
  /** In mount order: a later entry wins over an earlier one for the same path. */
  mounts: ViewEntry[];
  /** Relative to each home; shown read-only where they exist. */
  homeAllowList: readonly string[];
  network: boolean;
  /** The seccomp filter bwrap installs, or why there is none. */
  seccomp: { installed: boolean; description: string };
}

export function buildCommandViewReport(
  commandSandbox: CommandSandbox,
  sparkHome: string,
  cwd: string = process.cwd(),
): CommandViewReport | undefined {
  if (commandSandbox.kind !== "bubblewrap") return undefined;
  const workspace = realpathSync(cwd);
  const mounts = sandboxMounts(
    sandboxViewInputFor(workspace, findProtectedPaths(workspace).readOnly, sparkHome),
  );
  return {
    workspace,
    mounts: mounts.flatMap((mount): ViewEntry[] => {
      const entry = { path: mount.target, reason: mount.reason };
      switch (mount.kind) {
        case "read-only":
          return [
            mount.source === mount.target
              ? { access: "read-only", ...entry }
              : { access: "read-only", ...entry, source: mount.source },
          ];
        case "writable":
          return [{ access: "writable", ...entry }];
        case "link":
          return [{ access: "link", ...entry, source: mount.linkTarget }];
        case "empty":
        case "masked":
          return [{ access: "hidden", ...entry }];
        default:
          // /dev and /proc: the sandbox's own.
          return [];
      }
    }),
    homeAllowList: HOME_TOOLCHAIN_FOLDERS,
    network: commandSandbox.network,
    seccomp: seccompReport(),
  };
}

function seccompReport(): CommandViewReport["seccomp"] {
  const filter = seccompFilterFor();
  return filter === undefined
    ? { installed: false, description: missingFilterDescription() }
    : { installed: true, description: filter.description };
}

/** Lines under doctor's "command sandbox:" line; neighbours with one access and reason share one. */
export function formatCommandView(view: CommandViewReport): string[] {
  const groups: { access: string; reason: string; paths: string[] }[] = [];
  for (const entry of view.mounts) {
    const shown =
      entry.source === undefined
        ? entry.path
        : entry.access === "link"
          ? `${entry.path} -> ${entry.source}`
          : `${entry.path} (from ${entry.source})`;
    const last = groups.at(-1);
    if (last !== undefined && last.access === entry.access && last.reason === entry.reason)
      last.paths.push(shown);
    else groups.push({ access: entry.access, reason: entry.reason, paths: [shown] });
  }
  return [
    `  what a command run in ${view.workspace} sees (a later line wins over an earlier one):`,
    ...groups.map(
      (group) => `    ${`${group.access}:`.padEnd(10)} ${group.paths.join(", ")} (${group.reason})`,
    ),
    "    absent:    every other folder of the machine (unknown top-level folders, the rest of /var, /home, /mnt, the workspace's siblings) and every socket in them",
    "    read-only: every .git and .spark below the workspace, found before each command; one it creates, moves or replaces is undone after it",
    `    home folders shown read-only where they exist: ${view.homeAllowList.join(", ")}; PATH's folders; the running Node.js's installation; the toolchains NVM_DIR, PYENV_ROOT, CARGO_HOME, RUSTUP_HOME, GOROOT, GOPATH, JAVA_HOME, … name`,
    view.network
      ? "    network: on (the host's loopback services and abstract unix sockets are reachable)"
      : "    network: off (no TCP or UDP, no abstract unix sockets); IPC, hostname and cgroups are the command's own",
    `    ${view.seccomp.description}`,
  ];
}
