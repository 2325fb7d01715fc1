// The edit tasks `spark eval` runs: one folder per task (bundled ones under evals/tasks) holding
// task.json (prompt, summary, kind), repo/ (the repository the agent edits, copied per run) and
// check.mjs (run by node in the edited copy: exit 0 means the task is done).
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { SparkError } from "../protocol/spark-error.ts";

export const bundledTasksDirectory = fileURLToPath(new URL("../../evals/tasks", import.meta.url));

const taskFileSchema = z.strictObject({
  prompt: z.string().min(1),
  summary: z.string().min(1),
  kind: z.string().min(1),
});

export interface EvalTask {
  name: string;
  prompt: string;
  summary: string;
  /** What the task exercises: "rename", "bug fix", "security", … */
  kind: string;
  /** Copied to a fresh folder for every run; the agent works there. */
  repositoryDirectory: string;
  /** Run as `node <checkPath>` in the edited copy; kept outside it so the agent cannot edit it. */
  checkPath: string;
  /** A reference edit (files that overwrite repo/), when the task has one; the tests use it. */
  solutionDirectory?: string;
}

/** Every task in `directory`, in name order; `names` picks some (an unknown name is an error). */
export async function loadEvalTasks(
  directory: string,
  names?: readonly string[],
): Promise<EvalTask[]> {
  let entries: string[];
  try {
    entries = (await readdir(directory, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    throw new SparkError("invalid_request", `Cannot read the eval tasks in ${directory}.`, {
      cause: error,
    });
  }
  const unknown = (names ?? []).filter((name) => !entries.includes(name));
  if (unknown.length > 0) {
    throw new SparkError(
      "invalid_request",
      `No eval task ${unknown.map((name) => `"${name}"`).join(", ")}; the tasks are: ${entries.join(", ")}.`,
    );
  }
  const chosen = names === undefined || names.length === 0 ? entries : [...new Set(names)];
  return Promise.all(chosen.map((name) => loadEvalTask(path.join(directory, name))));
}

async function loadEvalTask(directory: string): Promise<EvalTask> {
  const name = path.basename(directory);
  const taskFile = path.join(directory, "task.json");
  let parsed: z.infer<typeof taskFileSchema>;
  try {
    parsed = taskFileSchema.parse(JSON.parse(await readFile(taskFile, "utf8")));
  } catch (error) {
    throw new SparkError(
      "invalid_request",
      `Eval task ${name}: ${taskFile} must hold {"prompt", "summary", "kind"} strings (${error instanceof Error ? error.message : String(error)}).`,
      { cause: error },
    );
  }
  const repositoryDirectory = path.join(directory, "repo");
  const checkPath = path.join(directory, "check.mjs");
  for (const required of [repositoryDirectory, checkPath]) {
    if (!existsSync(required)) {
      throw new SparkError("invalid_request", `Eval task ${name} has no ${required}.`);
    }
  }
  const solutionDirectory = path.join(directory, "solution");
  return {
    name,
    ...parsed,
    repositoryDirectory,
    checkPath,
    ...(existsSync(solutionDirectory) ? { solutionDirectory } : {}),
  };
}
