// The eval matrix: every task on every model, `repeat` times, one run at a time (so timings are
// not shared between runs), models one after another so only one local model is loaded at once.
import {
  EVAL_REPORT_SCHEMA,
  summarizeModel,
  type EvalReport,
  type EvalRun,
} from "./eval-report.ts";
import type { EvalTask } from "./eval-task.ts";
import { runEvalTask, type EvalModelSession } from "./run-eval-task.ts";

export interface EvalModelSource {
  /** As the user named it: a configured name or alias, a .gguf path, script:<file>. */
  label: string;
  /** A model for one run's session (called once per run). */
  openModel(): Promise<EvalModelSession>;
  /** Unloads the model once its runs are done. */
  dispose(): Promise<void>;
}

export interface EvalPlan {
  models: readonly EvalModelSource[];
  tasks: readonly EvalTask[];
  repeat: number;
  timeoutMs: number;
  maxSteps?: number;
  allowCommands: boolean;
}

export interface EvalProgress {
  onRunStart?(model: string, task: EvalTask, attempt: number): void;
  onRunEnd?(run: EvalRun): void;
}

/** Never throws for a run's failure; stops at the next run when `signal` aborts. */
export async function runEval(
  plan: EvalPlan,
  signal: AbortSignal,
  progress: EvalProgress = {},
): Promise<EvalReport> {
  const startedAt = new Date();
  const runs: EvalRun[] = [];
  for (const model of plan.models) {
    try {
      for (let attempt = 1; attempt <= plan.repeat; attempt += 1) {
        for (const task of plan.tasks) {
          if (signal.aborted) break;
          progress.onRunStart?.(model.label, task, attempt);
          const run = await runEvalTask({
            task,
            model: model.label,
            attempt,
            openModel: () => model.openModel(),
            timeoutMs: plan.timeoutMs,
            ...(plan.maxSteps === undefined ? {} : { maxSteps: plan.maxSteps }),
            allowCommands: plan.allowCommands,
            signal,
          });
          runs.push(run);
          progress.onRunEnd?.(run);
        }
      }
    } finally {
      await model.dispose().catch(() => undefined);
    }
    if (signal.aborted) break;
  }
  return {
    schema: EVAL_REPORT_SCHEMA,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    interrupted: signal.aborted,
    settings: {
      models: plan.models.map((model) => model.label),
      tasks: plan.tasks.map((task) => task.name),
      repeat: plan.repeat,
      timeoutSeconds: plan.timeoutMs / 1000,
    },
    models: plan.models.map((model) => summarizeModel(model.label, runs)),
    runs,
  };
}
