// Linux names every open descriptor at /proc/self/fd/<n>: a path `<that>/<name>` acts as openat()
// (and renameat, mkdirat, unlinkat) relative to the descriptor's folder, whatever happens to the
// folder's path meanwhile, and reading the link gives the real path of what was opened.
import fs from "node:fs";

let available: boolean | undefined;

/** Whether /proc/self/fd works here (Linux with /proc mounted); not on macOS or Windows. */
export function descriptorPathsAvailable(): boolean {
  available ??= process.platform === "linux" && fs.existsSync("/proc/self/fd");
  return available;
}

/** The path that names what `descriptor` has open; only meaningful when available. */
export function descriptorPath(descriptor: number): string {
  return `/proc/self/fd/${descriptor}`;
}
