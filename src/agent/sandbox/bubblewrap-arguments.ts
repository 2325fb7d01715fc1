// bwrap's command line for one command: the whole filesystem read-only, a private /tmp, the
// workspace writable except the folders that would let a command act later outside the sandbox
// (git's hooks and config, husky's hooks, Spark's project settings). Mounts apply in order, so
// each later one overrides what an earlier one made of the same path.

export interface BubblewrapPlan {
  /** Real path of the workspace root: the only place a command may write. */
  workspaceRoot: string;
  cwd: string;
  /** Real paths bound read-only after the workspace (inside it, or hidden by the private /tmp). */
  readOnlyPaths: readonly string[];
  network: boolean;
}

/** The arguments before `--` and the program; the caller appends `/bin/sh -c <command>`. */
export function bubblewrapArguments(plan: BubblewrapPlan): string[] {
  return [
    ...["--ro-bind", "/", "/"],
    ...["--dev", "/dev"],
    ...["--proc", "/proc"],
    // Before the workspace bind, so a workspace under /tmp stays visible inside it.
    ...["--tmpfs", "/tmp"],
    ...["--bind", plan.workspaceRoot, plan.workspaceRoot],
    ...plan.readOnlyPaths.flatMap((readOnly) => ["--ro-bind", readOnly, readOnly]),
    "--unshare-pid",
    ...(plan.network ? [] : ["--unshare-net"]),
    // Run as root, bwrap would keep every capability, and CAP_SYS_ADMIN remounts / read-write.
    ...["--cap-drop", "ALL"],
    "--die-with-parent",
    // No TIOCSTI: a command cannot type into the terminal Spark runs in.
    "--new-session",
    ...["--chdir", plan.cwd],
  ];
}

/** The full argv after the bwrap executable. */
export function bubblewrapCommandLine(plan: BubblewrapPlan, command: string): string[] {
  return [...bubblewrapArguments(plan), "--", "/bin/sh", "-c", command];
}
