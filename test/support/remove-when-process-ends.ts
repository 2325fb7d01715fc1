// A folder removed when this process ends, however it ends: vitest ends its workers without an
// `exit` event, so a shell that waits on a pipe from this process removes the folder once the pipe
// closes (on exit, a crash or a kill alike).
import { spawn } from "node:child_process";
import type { Socket } from "node:net";

export function removeWhenProcessEnds(folder: string): void {
  const watcher = spawn("sh", ["-c", 'read -r _; rm -rf "$0"', folder], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  watcher.unref();
  (watcher.stdin as Socket | null)?.unref();
}
