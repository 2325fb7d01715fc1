// How `spark serve` (one process, or one `--workers` worker) answers signals: SIGTERM or SIGINT
// drains (unready, new work refused, responses in flight finish within [serve]
// drain_grace_seconds, the rest handed over to other replicas), closes and exits 0; a second
// SIGINT exits at once; SIGHUP reloads what can change without a restart, or, in a terminal (a
// hangup: the terminal closed), drains and exits as SIGTERM does.
import type { DrainOutcome } from "../gateway/gateway-drain.ts";

export interface Drainable {
  drain(graceMs: number): Promise<DrainOutcome>;
  close(): Promise<void>;
}

export interface ServeSignalOptions {
  graceMs: number;
  log: (line: string) => void;
  /** SIGHUP: re-read what can change without a restart; its errors are logged, never fatal. */
  reload?: () => Promise<string>;
}

/** Exit code of a second SIGINT (the shell's for an interrupted command). */
export const IMMEDIATE_EXIT_CODE = 130;

/** Resolves with the exit code once a signal has drained and closed the server. */
export function serveUntilSignalled(
  server: Drainable,
  options: ServeSignalOptions,
): Promise<number> {
  const { log } = options;
  return new Promise((resolve) => {
    let draining = false;
    const onStop = (signal: NodeJS.Signals): void => {
      if (draining) {
        // A terminal's Ctrl+C twice: the operator does not want to wait.
        if (signal === "SIGINT") {
          log(`spark serve: ${signal} again; exiting now`);
          process.exit(IMMEDIATE_EXIT_CODE);
        }
        return;
      }
      draining = true;
      log(
        `spark serve: ${signal}: draining (responses in flight get up to ${Math.round(options.graceMs / 1000)} s; SIGINT again to exit now)`,
      );
      void drainAndClose(server, options).then(resolve);
    };
    process.on("SIGTERM", onStop);
    process.on("SIGINT", onStop);
    process.on("SIGHUP", () => {
      // In a terminal SIGHUP is the terminal going away (a closed tab, an editor's killed
      // terminal): the server goes with it. Reload is for servers a service manager started.
      if (hangupMeansExit()) {
        onStop("SIGHUP");
        return;
      }
      if (options.reload === undefined) {
        log("spark serve: SIGHUP ignored (nothing to reload here)");
        return;
      }
      options.reload().then(
        (summary) => log(`spark serve: SIGHUP: ${summary}`),
        (error: unknown) =>
          log(
            `spark serve: SIGHUP: reload failed, serving as before: ${error instanceof Error ? error.message : String(error)}`,
          ),
      );
    });
  });
}

/** Whether this process runs in a terminal, where a hangup means the terminal closed. */
export function hangupMeansExit(): boolean {
  return process.stdin.isTTY === true || process.stdout.isTTY === true;
}

async function drainAndClose(server: Drainable, options: ServeSignalOptions): Promise<number> {
  try {
    const outcome = await server.drain(options.graceMs);
    options.log(
      `spark serve: drained: ${outcome.finished} finished, ${outcome.handedOver} handed over to other replicas, ${outcome.stopped} stopped`,
    );
    await server.close();
    return 0;
  } catch (error) {
    options.log(
      `spark serve: shutdown failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
}
