// The report `spark eval` prints and writes as JSON (schema "spark-eval/1", documented in the
// README): every run as it happened, and per model the pass rate and the medians a user compares.
import type { SparkErrorJson } from "../protocol/spark-error.ts";
import type { TurnEndReason } from "../agent/agent-events.ts";

export const EVAL_REPORT_SCHEMA = "spark-eval/1";

/**
 * pass: the check passed. fail: the turn ended and the check failed. error: the model or the run
 * failed (model error, step limit…) and the check failed. timeout: the turn ran past --timeout.
 * interrupted: Ctrl-C stopped it. Only timeout and interrupted skip the check.
 */
export type EvalOutcome = "pass" | "fail" | "error" | "timeout" | "interrupted";

export interface EvalRun {
  model: string;
  task: string;
  /** 1..repeat */
  attempt: number;
  outcome: EvalOutcome;
  /** The agent turn's wall time (the check not included). */
  durationMs: number;
  timeToFirstTokenMs: number | null;
  /** Time spent streaming from the model, every step of the turn together. */
  modelMs: number;
  inputTokens: number;
  outputTokens: number;
  /** outputTokens over modelMs; null without output. */
  tokensPerSecond: number | null;
  steps: number;
  /** How the agent turn ended; null when it never started (the model could not be opened). */
  turnReason: TurnEndReason | null;
  /** The models the router chose for the turn's steps, in order (empty without a router). */
  routes: string[];
  error?: SparkErrorJson;
  check?: { passed: boolean; exitCode: number | null; timedOut: boolean; output: string };
}

export interface EvalModelSummary {
  model: string;
  runs: number;
  passed: number;
  /** passed / runs, 0..1; null when nothing ran. */
  passRate: number | null;
  medianTaskMs: number | null;
  medianTimeToFirstTokenMs: number | null;
  /** Every run's output tokens over every run's model time. */
  tokensPerSecond: number | null;
  errors: number;
  timeouts: number;
  /** Per task: passed out of runs. */
  tasks: Record<string, { runs: number; passed: number }>;
}

export interface EvalReport {
  schema: typeof EVAL_REPORT_SCHEMA;
  startedAt: string;
  finishedAt: string;
  /** Ctrl-C stopped the run: what did not run is missing from `runs`. */
  interrupted: boolean;
  settings: { models: string[]; tasks: string[]; repeat: number; timeoutSeconds: number };
  models: EvalModelSummary[];
  runs: EvalRun[];
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? 0) + upper) / 2;
}

/** Interrupted runs say nothing about the model, so they count toward nothing. */
export function summarizeModel(model: string, allRuns: readonly EvalRun[]): EvalModelSummary {
  const runs = allRuns.filter((run) => run.model === model && run.outcome !== "interrupted");
  const passed = runs.filter((run) => run.outcome === "pass").length;
  const outputTokens = runs.reduce((sum, run) => sum + run.outputTokens, 0);
  const modelMs = runs.reduce((sum, run) => sum + run.modelMs, 0);
  const tasks: EvalModelSummary["tasks"] = {};
  for (const run of runs) {
    const entry = (tasks[run.task] ??= { runs: 0, passed: 0 });
    entry.runs += 1;
    if (run.outcome === "pass") entry.passed += 1;
  }
  return {
    model,
    runs: runs.length,
    passed,
    passRate: runs.length === 0 ? null : passed / runs.length,
    // A timed-out run would only report the timeout; a model that never opened ran no turn.
    medianTaskMs: median(
      runs
        .filter((run) => run.outcome !== "timeout" && run.turnReason !== null)
        .map((run) => run.durationMs),
    ),
    medianTimeToFirstTokenMs: median(
      runs.flatMap((run) => (run.timeToFirstTokenMs === null ? [] : [run.timeToFirstTokenMs])),
    ),
    tokensPerSecond: outputTokens === 0 || modelMs === 0 ? null : outputTokens / (modelMs / 1000),
    errors: runs.filter((run) => run.outcome === "error").length,
    timeouts: runs.filter((run) => run.outcome === "timeout").length,
    tasks,
  };
}
