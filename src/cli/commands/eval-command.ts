// `spark eval`: runs the bundled edit tasks on chosen models through the real agent and prints
// pass rate, median time per task, time to first token and decode tokens/s side by side per model
// (--json writes the full report). Exit codes: 0 ran, 1 error, 2 usage, 130 interrupted.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { loadConfig } from "../../config/load-config.ts";
import { bundledTasksDirectory, loadEvalTasks } from "../../eval/eval-task.ts";
import { formatEvalReport, formatRunOutcome } from "../../eval/format-eval-report.ts";
import { runEval } from "../../eval/run-eval.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import {
  EXIT_ERROR,
  EXIT_INTERRUPTED,
  EXIT_SUCCESS,
  EXIT_USAGE,
  exitWithUsageCodes,
} from "./exec-command.ts";
import { evalModelSource } from "../eval-model-source.ts";
import { parsePositiveInteger, UsageError } from "../usage-error.ts";

const DEFAULT_TIMEOUT_SECONDS = 300;

interface EvalFlags {
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

export function registerEvalCommand(program: Command): void {
  program
    .command("eval")
    .description("Run the bundled edit tasks on models through the agent and compare them")
    .option(
      "--models <list>",
      "comma-separated models: configured names or aliases (fast, deep), .gguf paths, script:<file.jsonl> (default: the configured default)",
    )
    .option("--tasks <list>", "comma-separated task names (default: all; see --list)")
    .option("--tasks-dir <dir>", "run the tasks in this folder instead of the bundled ones")
    .option("--json <file>", "also write the full report (schema spark-eval/2) to this file")
    .option("--repeat <n>", "runs of every task on every model (default 1)")
    .option(
      "--timeout <seconds>",
      `time allowed for one task's agent turn (default ${DEFAULT_TIMEOUT_SECONDS})`,
    )
    .option("--max-steps <n>", "model calls allowed per task (default 50)")
    .option("--allow-commands", "let the agent run any shell command in the task's copy")
    .option("--list", "list the tasks and exit")
    .exitOverride(exitWithUsageCodes)
    .action(async (flags: EvalFlags) => {
      process.exitCode = await runEvalCommand(flags);
    });
}

async function runEvalCommand(flags: EvalFlags): Promise<number> {
  let tasks: Awaited<ReturnType<typeof loadEvalTasks>>;
  let numbers: { repeat: number; timeoutSeconds: number; maxSteps: number | undefined };
  try {
    numbers = {
      repeat: parsePositiveInteger("--repeat", flags.repeat) ?? 1,
      timeoutSeconds: parsePositiveNumber("--timeout", flags.timeout) ?? DEFAULT_TIMEOUT_SECONDS,
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
