// How one run_command command starts: the program, its arguments and its environment under the
// session's sandbox, and what to check once it has ended.
import { bubblewrapCommandLine } from "./bubblewrap-arguments.ts";
import { commandEnvironment } from "./command-environment.ts";
import type { CommandSandbox } from "./command-sandbox.ts";
import { guardAbsentPaths } from "./guard-absent-paths.ts";
import { findProtectedPaths } from "./protected-workspace-paths.ts";

export interface CommandLaunchOptions {
  command: string;
  cwd: string;
  /** Real path of the workspace root. */
  workspaceRoot: string;
  sandbox: CommandSandbox;
}

export interface CommandLaunch {
  /** With `shell`, the whole command line for the platform's shell; else the program. */
  file: string;
  args: string[];
  shell: boolean;
  env: Record<string, string>;
  /** Runs once the command (and everything it started) has ended; lines for its output. */
  afterCommand(): string[];
}

export function prepareCommandLaunch(options: CommandLaunchOptions): CommandLaunch {
  const { sandbox, workspaceRoot } = options;
  const protectedPaths = findProtectedPaths(workspaceRoot);
  // Without a sandbox nothing stops the command; the guard still keeps the rule it can keep.
  const guard = guardAbsentPaths(workspaceRoot, protectedPaths.absent);
  const afterCommand = (): string[] => guard.removeAppeared();
  if (sandbox.kind === "none") {
    return {
      file: options.command,
      args: [],
      shell: true,
      env: commandEnvironment(process.env, sandbox.passEnvironment),
      afterCommand,
    };
  }
  return {
    // Never unconfined by accident: without a path, bwrap from PATH or a spawn error.
    file: sandbox.bubblewrapPath ?? "bwrap",
    args: bubblewrapCommandLine(
      {
        workspaceRoot,
        cwd: options.cwd,
        readOnlyPaths: protectedPaths.readOnly,
        network: sandbox.network,
      },
      options.command,
    ),
    shell: false,
    // Temporary files go to the sandbox's private /tmp, whatever TMPDIR said outside.
    env: commandEnvironment(process.env, sandbox.passEnvironment, { TMPDIR: "/tmp" }),
    afterCommand,
  };
}
