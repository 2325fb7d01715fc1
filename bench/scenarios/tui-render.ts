// Scenario 7: the terminal UI under a fast stream. A synthetic engine streams at 5,000 tokens/s
// through the in-process app server into the real Ink app (a child process, TTY-like output).
// Measured: tokens/s sustained, lag of the last rendered token, frames and fps, and the process's
// CPU with the UI against the same turn without it.
import { fileURLToPath } from "node:url";
import { forkTypeScript } from "../lib/fork-typescript.ts";
import type { Scenario } from "../lib/scenario.ts";
import { figure, type ScenarioResult } from "../lib/scenario-result.ts";
import { round } from "../lib/stats.ts";
import type { TuiBenchRequest, TuiBenchRun } from "../lib/tui-bench-child.tsx";

const CHILD = fileURLToPath(new URL("../lib/tui-bench-child.tsx", import.meta.url));
const TOKENS_PER_SECOND = 5000;

export const tuiRender: Scenario = {
  number: 7,
  id: "tui-render",
  title: "Terminal UI at 5,000 tokens/s",
  async run(settings) {
    const startedAt = new Date();
    const seconds = { full: 10, quick: 5, smoke: 0.5 }[settings.size];
    const request: TuiBenchRequest = {
      tokensPerSecond: TOKENS_PER_SECOND,
      tokens: Math.round(TOKENS_PER_SECOND * seconds),
    };
    // React's production build, as `spark` runs it.
    const child = forkTypeScript(CHILD, [], { env: { ...process.env, NODE_ENV: "production" } });
    const onAbort = (): boolean => child.kill();
    settings.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const reply = await new Promise<{ baseline: TuiBenchRun; withUi: TuiBenchRun }>(
        (resolve, reject) => {
          child.once("message", (message) =>
            resolve(message as { baseline: TuiBenchRun; withUi: TuiBenchRun }),
          );
          child.once("exit", (code) => reject(new Error(`The TUI bench child exited (${code}).`)));
          child.send(request);
        },
      );
      return buildResult(reply.baseline, reply.withUi, startedAt, {
        tokensPerSecond: TOKENS_PER_SECOND,
        tokens: request.tokens,
        terminal: "120×40, TTY-like stream in the same process",
        size: settings.size,
      });
    } finally {
      settings.signal.removeEventListener("abort", onAbort);
      child.kill();
    }
  },
};

function rates(run: TuiBenchRun) {
  const seconds = run.streamMs / 1000;
  return {
    // Tokens, not events: several tokens of one tick arrive as one coalesced delta.
    tokensPerSecond: seconds > 0 ? run.outputTokens / seconds : null,
    fps: seconds > 0 ? run.frames / seconds : null,
    cores: run.cpuMs / run.wallMs,
  };
}

function buildResult(
  baseline: TuiBenchRun,
  withUi: TuiBenchRun,
  startedAt: Date,
  configuration: Record<string, unknown>,
): ScenarioResult {
  const ui = rates(withUi);
  const bare = rates(baseline);
  const uiCores = ui.cores - bare.cores;
  const row = (name: string, run: TuiBenchRun, derived: ReturnType<typeof rates>) => [
    name,
    run.deltas,
    round(derived.tokensPerSecond ?? Number.NaN, 0),
    round(run.lastTokenLagMs ?? Number.NaN, 1),
    run.frames,
    round(derived.fps ?? Number.NaN, 1),
    round(run.cpuMs, 0),
    round(derived.cores, 3),
  ];
  return {
    scenario: 7,
    id: "tui-render",
    title: "Terminal UI at 5,000 tokens/s",
    status: "ran",
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    configuration,
    figures: [
      figure(
        "tokens/s sustained with the UI",
        round(ui.tokensPerSecond ?? Number.NaN, 0),
        "tok/s",
        {
          comparison: ">=",
          value: 4500,
        },
      ),
      figure("last token → on screen", round(withUi.lastTokenLagMs ?? Number.NaN, 1), "ms", {
        comparison: "<=",
        value: 50,
      }),
      figure("frames per second while streaming", round(ui.fps ?? Number.NaN, 1), "fps", {
        comparison: "<=",
        value: 31,
      }),
      figure("TUI process CPU (app server + engine + UI)", round(ui.cores, 3), "cores", {
        comparison: "<=",
        value: 0.5,
      }),
      figure("of which the UI (vs the same turn without it)", round(uiCores, 3), "cores"),
    ],
    tables: [
      {
        title: "One turn streamed at 5,000 tokens/s, with and without the terminal UI",
        columns: [
          "run",
          "deltas",
          "tokens/s",
          "last token lag (ms)",
          "frames",
          "fps",
          "CPU (ms)",
          "cores",
        ],
        rows: [row("with the UI", withUi, ui), row("without (baseline)", baseline, bare)],
      },
    ],
    charts: [],
    notes: [
      "Both runs are one process each holding the in-process app server, the synthetic engine and (with the UI) Ink; 'cores' is CPU time over wall time from turn/start to 150 ms after the turn ends.",
      "The UI folds events once per frame (~33 ms) and moves complete lines into <Static>, so the live region stays one line however long the answer grows.",
      "Ink renders only the last frame when CI is set; run this scenario outside CI.",
    ],
    data: { baseline, withUi },
  };
}
