// Work done when this process ends, however it ends: vitest ends its workers without an `exit`
// event, so a shell that waits on a pipe from this process runs it once the pipe closes (on exit,
// a crash or a kill alike).
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";

/**
 * Runs the shell `script` (its arguments as $0, $1, …) once this process has ended. Returns the
 * waiting shell: kill it to call the work off.
 */
export function whenProcessEnds(script: string, ...args: string[]): ChildProcess {
  const watcher = spawn("sh", ["-c", `read -r _; ${script}`, ...args], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  watcher.unref();
  (watcher.stdin as Socket | null)?.unref();
  return watcher;
}

/** Removes `folder` once this process has ended. */
export function removeWhenProcessEnds(folder: string): void {
  whenProcessEnds('rm -rf "$0"', folder);
}
