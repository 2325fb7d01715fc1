// A tmux server of a test's own (its own socket, so a user's sessions are never touched), with
// capture-pane and a wait for what the pane shows; each step's pane is printed to the test log.
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const SPARK = fileURLToPath(new URL("../../../bin/spark.js", import.meta.url));
export const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

export interface TmuxServer {
  run(...args: string[]): string;
  /** The whole pane of a session, scrollback included, wrapped lines joined. */
  capture(target: string): string;
  waitForPane(
    target: string,
    step: string,
    predicate: (pane: string) => boolean,
    timeoutMs?: number,
  ): Promise<string>;
  kill(): void;
}

export function tmuxServer(name: string): TmuxServer {
  const socket = `${name}-${process.pid}`;
  const run = (...args: string[]): string =>
    execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  const capture = (target: string): string =>
    run("capture-pane", "-p", "-J", "-S", "-500", "-t", target);
  return {
    run,
    capture,
    async waitForPane(target, step, predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let pane = "";
      while (Date.now() < deadline) {
        pane = capture(target);
        if (predicate(pane)) {
          console.log(`--- ${step} ---\n${pane.trimEnd()}\n`);
          return pane;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`Timed out waiting for: ${step}\n--- the pane ---\n${pane}`);
    },
    kill() {
      spawnSync("tmux", ["-L", socket, "kill-server"]);
    },
  };
}
