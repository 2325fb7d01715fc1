// The report `spark eval` prints and writes as JSON (schema "spark-eval/2", documented in the
// README): every run as it happened, and per model the pass rate and the medians a user compares.
import type { SparkErrorJson } from "../protocol/spark-error.ts";
import type { TurnEndReason } from "../agent/agent-events.ts";

/** 2: `tokensPerSecond` (output over model time, prefill included) became `decodeTokensPerSecond`. */
export const EVAL_REPORT_SCHEMA = "spark-eval/2";

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
  /** From the turn's start to the first token of its first model call: queueing and prefill. */
  timeToFirstTokenMs: number | null;
  /** Time spent streaming from the model, every step of the turn together (prefill included). */
  modelMs: number;
  inputTokens: number;
  outputTokens: number;
  /** Every step's first-to-last-token time together: decoding only, no prefill. */
  decodeMs: number;
  /** The output tokens decoded in decodeMs: each step's tokens after its first. */
  decodeTokens: number;
  /** decodeTokens over decodeMs; null when nothing was decoded after a first token. */
  decodeTokensPerSecond: number | null;
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
  /** Every run's decodeTokens over every run's decodeMs (prefill left out: see TTFT). */
  decodeTokensPerSecond: number | null;
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
  const decodeTokens = runs.reduce((sum, run) => sum + run.decodeTokens, 0);
  const decodeMs = runs.reduce((sum, run) => sum + run.decodeMs, 0);
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
    decodeTokensPerSecond: decodeTokensPerSecond(decodeTokens, decodeMs),
    errors: runs.filter((run) => run.outcome === "error").length,
    timeouts: runs.filter((run) => run.outcome === "timeout").length,
    tasks,
  };
}

export function decodeTokensPerSecond(decodeTokens: number, decodeMs: number): number | null {
  return decodeTokens === 0 || decodeMs === 0 ? null : decodeTokens / (decodeMs / 1000);
}
