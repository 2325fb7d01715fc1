// How one run_command command starts: the program, its arguments and its environment under the
// session's sandbox, and what to check once it has ended.
import path from "node:path";
import { sparkHome } from "../../config/spark-home.ts";
import { bubblewrapCommandLine } from "./bubblewrap-arguments.ts";
import { commandEnvironment } from "./command-environment.ts";
import type { CommandSandbox } from "./command-sandbox.ts";
import { NESTED_METADATA_NAMES } from "./find-nested-metadata.ts";
import { guardAbsentPaths } from "./guard-absent-paths.ts";
import { guardNestedMetadata } from "./nested-metadata-guard.ts";
import { findProtectedPaths, isInside } from "./protected-workspace-paths.ts";
import { sandboxMounts, sandboxViewInputFor } from "./sandbox-mounts.ts";
import { SECCOMP_DESCRIPTOR, seccompFilterFor } from "./seccomp-filter.ts";

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
  /** Written to descriptor 3 of the child (and closed): bwrap's seccomp program. */
  seccompProgram?: Buffer;
  /** Runs once the command (and everything it started) has ended; lines for its output. */
  afterCommand(): string[];
}

export function prepareCommandLaunch(options: CommandLaunchOptions): CommandLaunch {
  const { sandbox, workspaceRoot } = options;
  const protectedPaths = findProtectedPaths(workspaceRoot);
  // Every .git and .spark below the workspace, at any depth (the nested guard), and the root's
  // other protected paths (.husky, the hooks folder) that a command may not create.
  const nested = guardNestedMetadata(workspaceRoot);
  const absent = protectedPaths.absent.filter(
    (entry) =>
      !(
        NESTED_METADATA_NAMES.has(path.basename(entry.path)) && isInside(workspaceRoot, entry.path)
      ),
  );
  // Without a sandbox nothing stops the command; the guards still keep the rule they can keep.
  const guard = guardAbsentPaths(workspaceRoot, absent);
  const afterCommand = (): string[] => [...guard.removeAppeared(), ...nested.undoChanges()];
  if (sandbox.kind === "none") {
    return {
      file: options.command,
      args: [],
      shell: true,
      env: commandEnvironment(process.env, sandbox.passEnvironment),
      afterCommand,
    };
  }
  const readOnly = [...new Set([...protectedPaths.readOnly, ...nested.readOnly])];
  const mounts = sandboxMounts(sandboxViewInputFor(workspaceRoot, readOnly, sparkHome()));
  const filter = seccompFilterFor();
  const launch: CommandLaunch = {
    // Never unconfined by accident: without a path, bwrap from PATH or a spawn error.
    file: sandbox.bubblewrapPath ?? "bwrap",
    args: bubblewrapCommandLine(
      {
        mounts,
        cwd: options.cwd,
        network: sandbox.network,
        ...(filter === undefined ? {} : { seccompDescriptor: SECCOMP_DESCRIPTOR }),
      },
      options.command,
    ),
    shell: false,
    // Temporary files go to the sandbox's private /tmp, whatever TMPDIR said outside.
    env: commandEnvironment(process.env, sandbox.passEnvironment, { TMPDIR: "/tmp" }),
    afterCommand,
  };
  if (filter !== undefined) launch.seccompProgram = filter.program;
  return launch;
}
