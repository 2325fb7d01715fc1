// A fresh copy of a task's repository for one run, in its own temporary folder beside a sessions
// folder, so runs never see each other's edits and the user's session list stays clean.
import { cp, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { EvalTask } from "./eval-task.ts";

export interface TaskWorkspace {
  /** The repository the agent works in. */
  root: string;
  sessionsDirectory: string;
  remove(): Promise<void>;
}

export async function createTaskWorkspace(task: EvalTask): Promise<TaskWorkspace> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), `spark-eval-${task.name}-`)));
  const root = path.join(base, "repo");
  await cp(task.repositoryDirectory, root, { recursive: true });
  // A repository root, so nothing the agent loads (AGENTS.md, .gitignore) is looked up above it.
  await mkdir(path.join(root, ".git"), { recursive: true });
  const sessionsDirectory = path.join(base, "sessions");
  await mkdir(sessionsDirectory);
  return {
    root,
    sessionsDirectory,
    remove: () => rm(base, { recursive: true, force: true }),
  };
}
