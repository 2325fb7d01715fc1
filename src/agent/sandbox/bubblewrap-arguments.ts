// bwrap's command line for one command: the mounts of sandbox-mounts.ts in their order (a later
// one overrides what an earlier one made of the same path), the sandbox's own root made read-only,
// then the namespaces a command gets for itself: processes, IPC, hostname, cgroups, and the
// network unless it is allowed; and the seccomp filter, read from an inherited descriptor.
import type { SandboxMount } from "./sandbox-mounts.ts";

export interface BubblewrapPlan {
  /** In order; the workspace among them is the only writable place. */
  mounts: readonly SandboxMount[];
  cwd: string;
  network: boolean;
  /** The descriptor bwrap reads the seccomp program from (seccomp-filter.ts); none without. */
  seccompDescriptor?: number;
}

/** The arguments before `--` and the program; the caller appends `/bin/sh -c <command>`. */
export function bubblewrapArguments(plan: BubblewrapPlan): string[] {
  return [
    ...plan.mounts.flatMap(mountArguments),
    // The folders bwrap made for its mount points: nothing a command writes outside the workspace
    // and the private folders lands anywhere.
    ...["--remount-ro", "/"],
    "--unshare-pid",
    // SysV shared memory, semaphores and message queues of the host's programs: not this one's.
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    // Also takes abstract unix sockets (the X server's, some D-Bus buses): they live per network
    // namespace.
    ...(plan.network ? [] : ["--unshare-net"]),
    // Run as root, bwrap would keep every capability, and CAP_SYS_ADMIN remounts / read-write.
    ...["--cap-drop", "ALL"],
    "--die-with-parent",
    // No TIOCSTI: a command cannot type into the terminal Spark runs in.
    "--new-session",
    ...(plan.seccompDescriptor === undefined ? [] : ["--seccomp", String(plan.seccompDescriptor)]),
    ...["--chdir", plan.cwd],
  ];
}

function mountArguments(mount: SandboxMount): string[] {
  switch (mount.kind) {
    case "read-only":
      return ["--ro-bind", mount.source, mount.target];
    case "writable":
      return ["--bind", mount.target, mount.target];
    case "empty":
      return ["--tmpfs", mount.target];
    case "masked":
      return ["--ro-bind", "/dev/null", mount.target];
    case "devices":
      return ["--dev", mount.target];
    case "processes":
      return ["--proc", mount.target];
    case "link":
      return ["--symlink", mount.linkTarget, mount.target];
    default:
      return mount satisfies never;
  }
}

/** The full argv after the bwrap executable. */
export function bubblewrapCommandLine(plan: BubblewrapPlan, command: string): string[] {
  return [...bubblewrapArguments(plan), "--", "/bin/sh", "-c", command];
}
