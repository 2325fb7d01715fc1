// Whether bubblewrap works on this machine: bwrap on PATH is not enough (desktops without
// unprivileged user namespaces, containers without mount rights), so it is tried once with the
// mounts a command gets, and the answer kept for the process.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { sparkHome } from "../../config/spark-home.ts";
import { bubblewrapCommandLine } from "./bubblewrap-arguments.ts";
import { sandboxMounts, sandboxViewInputFor } from "./sandbox-mounts.ts";
import { SECCOMP_DESCRIPTOR, seccompFilterFor } from "./seccomp-filter.ts";

const PROBE_TIMEOUT_MS = 10_000;

export type CommandSandboxDetection =
  { kind: "bubblewrap"; bubblewrapPath: string } | { kind: "none"; reason: string };

export interface DetectionEnvironment {
  platform: NodeJS.Platform;
  /** The PATH searched for bwrap. */
  searchPath: string | undefined;
}

let cached: Promise<CommandSandboxDetection> | undefined;

/** Tries bubblewrap once per process; later calls get the same answer. */
export function detectCommandSandbox(): Promise<CommandSandboxDetection> {
  cached ??= probeCommandSandbox({ platform: process.platform, searchPath: process.env.PATH });
  return cached;
}

export async function probeCommandSandbox(
  environment: DetectionEnvironment,
): Promise<CommandSandboxDetection> {
  if (environment.platform !== "linux") {
    return { kind: "none", reason: `no sandbox is implemented for ${environment.platform}` };
  }
  const bubblewrapPath = findOnPath("bwrap", environment.searchPath);
  if (bubblewrapPath === undefined) {
    return {
      kind: "none",
      reason: "bwrap is not on PATH (install the bubblewrap package)",
    };
  }
  const failure = await tryBubblewrap(bubblewrapPath);
  return failure === undefined
    ? { kind: "bubblewrap", bubblewrapPath }
    : { kind: "none", reason: `${bubblewrapPath} cannot run here: ${failure}` };
}

/** Undefined when a sandboxed `true` ran; otherwise what went wrong, in bwrap's words. */
async function tryBubblewrap(bubblewrapPath: string): Promise<string | undefined> {
  // A throwaway workspace, so the probe makes every mount a real command gets, and installs the
  // same seccomp filter (a bwrap without --seccomp fails here, not on every command).
  const workspaceRoot = await mkdtemp(path.join(os.tmpdir(), "spark-sandbox-probe-"));
  const mounts = sandboxMounts(sandboxViewInputFor(workspaceRoot, [], sparkHome()));
  const filter = seccompFilterFor();
  const argv = bubblewrapCommandLine(
    {
      mounts,
      cwd: workspaceRoot,
      network: false,
      ...(filter === undefined ? {} : { seccompDescriptor: SECCOMP_DESCRIPTOR }),
    },
    "true",
  );
  try {
    return await new Promise((resolve) => {
      const child = spawn(bubblewrapPath, argv, {
        env: { PATH: "/usr/bin:/bin" },
        stdio: ["ignore", "ignore", "pipe", filter === undefined ? "ignore" : "pipe"],
        timeout: PROBE_TIMEOUT_MS,
      });
      let stderr = "";
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const seccompInput = child.stdio[3];
      if (filter !== undefined && seccompInput instanceof Writable) {
        seccompInput.on("error", () => undefined);
        seccompInput.end(filter.program);
      }
      child.once("error", (error) => resolve(error.message));
      child.once("close", (code, signal) => {
        if (code === 0) resolve(undefined);
        else resolve(firstLine(stderr) ?? `exit ${code ?? signal ?? "unknown"}`);
      });
    });
  } finally {
    await rm(workspaceRoot, { recursive: true, force: true });
  }
}

function findOnPath(program: string, searchPath: string | undefined): string | undefined {
  for (const directory of (searchPath ?? "").split(path.delimiter)) {
    if (directory === "" || !path.isAbsolute(directory)) continue;
    const candidate = path.join(directory, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

function firstLine(text: string): string | undefined {
  const line = text.trim().split("\n")[0]?.trim();
  return line === undefined || line === "" ? undefined : line;
}
