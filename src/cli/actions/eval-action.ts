// `spark eval`'s run: the tasks loaded, each model through the real agent, the report printed
// and written. commands/eval-command.ts loads it lazily.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../../config/load-config.ts";
import { bundledTasksDirectory, loadEvalTasks } from "../../eval/eval-task.ts";
import { formatEvalReport, formatRunOutcome } from "../../eval/format-eval-report.ts";
import { runEval } from "../../eval/run-eval.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { EXIT_ERROR, EXIT_INTERRUPTED, EXIT_SUCCESS, EXIT_USAGE } from "../exit-codes.ts";
import { evalModelSource } from "../eval-model-source.ts";
import { parsePositiveInteger, UsageError } from "../usage-error.ts";

export interface EvalFlags {
  models?: string;
  tasks?: string;
  tasksDir?: string;
  json?: string;
  repeat?: string;
  timeout?: string;
  maxSteps?: string;
  allowCommands?: boolean;
  list?: boolean;
}

/** `defaultTimeoutSeconds`: the default the command's help names, for a run without --timeout. */
export async function runEvalCommand(
  flags: EvalFlags,
  defaultTimeoutSeconds: number,
): Promise<number> {
  let tasks: Awaited<ReturnType<typeof loadEvalTasks>>;
  let numbers: { repeat: number; timeoutSeconds: number; maxSteps: number | undefined };
  try {
    numbers = {
      repeat: parsePositiveInteger("--repeat", flags.repeat) ?? 1,
      timeoutSeconds: parsePositiveNumber("--timeout", flags.timeout) ?? defaultTimeoutSeconds,
      maxSteps: parsePositiveInteger("--max-steps", flags.maxSteps),
    };
    const directory =
      flags.tasksDir === undefined ? bundledTasksDirectory : path.resolve(flags.tasksDir);
    tasks = await loadEvalTasks(directory, splitList(flags.tasks));
  } catch (error) {
    process.stderr.write(`spark eval: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_USAGE;
  }
  if (flags.list === true) {
    for (const task of tasks)
      process.stdout.write(`${task.name.padEnd(24)} ${task.kind.padEnd(14)} ${task.summary}\n`);
    return EXIT_SUCCESS;
  }
  const invokedIn = process.cwd();
  const named = splitList(flags.models);
  const models =
    named === undefined
      ? [evalModelSource(undefined, await defaultModelLabel(), invokedIn)]
      : named.map((model) => evalModelSource(model, model, invokedIn));
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts += 1;
    // The first Ctrl-C stops the running task and reports what finished; a second does not wait.
    if (interrupts === 1) controller.abort();
    else process.exit(EXIT_INTERRUPTED);
  };
  process.on("SIGINT", onInterrupt);
  const total = models.length * tasks.length * numbers.repeat;
  let started = 0;
  try {
    const report = await runEval(
      {
        models,
        tasks,
        repeat: numbers.repeat,
        timeoutMs: numbers.timeoutSeconds * 1000,
        ...(numbers.maxSteps === undefined ? {} : { maxSteps: numbers.maxSteps }),
        allowCommands: flags.allowCommands === true,
      },
      controller.signal,
      {
        onRunStart: (model, task, attempt) => {
          started += 1;
          const repeat = numbers.repeat > 1 ? ` #${attempt}` : "";
          process.stderr.write(`[${started}/${total}] ${model} ${task.name}${repeat} ... `);
        },
        onRunEnd: (run) => process.stderr.write(`${formatRunOutcome(run)}\n`),
      },
    );
    process.stdout.write(formatEvalReport(report));
    if (flags.json !== undefined) {
      await writeFile(path.resolve(invokedIn, flags.json), `${JSON.stringify(report, null, 2)}\n`);
    }
    return report.interrupted ? EXIT_INTERRUPTED : EXIT_SUCCESS;
  } catch (error) {
    const sparkError = SparkError.from(error);
    process.stderr.write(`spark eval: ${sparkError.message} [${sparkError.code}]\n`);
    return EXIT_ERROR;
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}

/** How the report names what `spark exec` would use with no --model: the configured default. */
async function defaultModelLabel(): Promise<string> {
  const config = await loadConfig({ cwd: process.cwd(), env: process.env, flags: {} });
  return config.defaultModel ?? "default";
}

function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.length === 0 ? undefined : items;
}

function parsePositiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    throw new UsageError(`${flag} must be a positive number of seconds, got "${value}".`);
  }
  return parsed;
}
