// Runs a shell command in its own process group so a timeout or an interrupt kills everything it
// started at once; keeps the last megabyte of combined output (memory bound, not the model's cap).
// The command runs in the session's sandbox with an environment free of secrets (src/agent/sandbox).
import { spawn } from "node:child_process";
import { Writable } from "node:stream";
import { prepareCommandLaunch, type CommandLaunch } from "../sandbox/command-launch.ts";
import type { CommandSandbox } from "../sandbox/command-sandbox.ts";

const MAX_CAPTURED_BYTES = 1024 * 1024;
/** After the process exits, how long to wait for grandchildren holding the pipes open. */
const CLOSE_GRACE_MS = 200;

export interface ProcessOutcome {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the shell could not be started at all. */
  spawnError?: Error;
}

export interface RunProcessOptions {
  command: string;
  cwd: string;
  /** Real path of the workspace root: the only place a sandboxed command may write. */
  workspaceRoot: string;
  sandbox: CommandSandbox;
  timeoutMs: number;
  signal: AbortSignal;
}

export async function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  const launch = prepareCommandLaunch(options);
  const outcome = await spawnAndCollect(launch, options);
  const notes = launch.afterCommand();
  if (notes.length > 0) {
    const separator = outcome.output === "" || outcome.output.endsWith("\n") ? "" : "\n";
    outcome.output = `${outcome.output}${separator}${notes.join("\n")}\n`;
  }
  return outcome;
}

function spawnAndCollect(
  launch: CommandLaunch,
  options: RunProcessOptions,
): Promise<ProcessOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let captured = 0;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const child = spawn(launch.file, launch.args, {
      shell: launch.shell,
      env: launch.env,
      cwd: options.cwd,
      detached: process.platform !== "win32",
      // Descriptor 3 carries bwrap's seccomp program (`--seccomp 3`); bwrap closes it.
      stdio:
        launch.seccompProgram === undefined
          ? ["ignore", "pipe", "pipe"]
          : ["ignore", "pipe", "pipe", "pipe"],
    });
    // Pipes by the stdio above; the four-entry form leaves them typed as maybe absent.
    const { stdout, stderr } = child;
    if (stdout === null || stderr === null) throw new Error("spawn made no output pipes");
    const seccompInput = child.stdio[3];
    if (launch.seccompProgram !== undefined && seccompInput instanceof Writable) {
      // bwrap that fails before reading it closes the pipe: its own error says why.
      seccompInput.on("error", () => undefined);
      seccompInput.end(launch.seccompProgram);
    }
    const capture = (chunk: Buffer): void => {
      chunks.push(chunk);
      captured += chunk.length;
      while (captured > MAX_CAPTURED_BYTES && chunks.length > 1)
        captured -= chunks.shift()?.length ?? 0;
    };
    stdout.on("data", capture);
    stderr.on("data", capture);
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined && process.platform !== "win32")
          process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    if (options.signal.aborted) onAbort();
    const finish = (
      exitCode: number | null,
      signal: NodeJS.Signals | null,
      spawnError?: Error,
    ): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      stdout.destroy();
      stderr.destroy();
      const outcome: ProcessOutcome = {
        output: Buffer.concat(chunks).toString("utf8"),
        exitCode,
        signal,
        timedOut,
        aborted,
      };
      if (spawnError !== undefined) outcome.spawnError = spawnError;
      resolve(outcome);
    };
    child.once("error", (error) => finish(null, null, error));
    child.once("close", (code, signal) => finish(code, signal));
    child.once("exit", (code, signal) => {
      // A background grandchild can keep the pipes open forever; do not wait on it.
      setTimeout(() => finish(code, signal), CLOSE_GRACE_MS).unref();
    });
  });
}
