// One `spark serve` a test, as before, but each started ahead: while a test runs, the next one's
// server gets through its start and waits for its turns (see spare-spark-serve.ts). A test that
// brings its own config.toml (keys, models) starts its server itself: the spare's config is read.
// For files that share windows, every server also runs agent sessions in the pool's windows
// folder, where each shared window gets a folder of its own: a later test's Ask view starts its
// sessions in the window's folder, not in its own server's workspace.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunnerTask, RunnerTestFile } from "vitest";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "../../agent/support/agent-workspace.ts";
import { startSparkServe, type SparkServeProcess } from "../../web/support/spark-serve-process.ts";
import { SpareSparkServe, workspaceRootArguments } from "./spare-spark-serve.ts";

/** A folder a window opens: where a test's files are written. */
export type WindowFolder = Pick<AgentWorkspace, "root" | "write">;

export interface SparkServeOptions {
  /** spark serve's config.toml: the server is started for it, not taken from the spares. */
  configToml?: string;
}

export interface SparkServePool {
  /** This test's server, with the scripted model's turns. */
  take(turns: unknown[], options?: SparkServeOptions): Promise<SparkServeProcess>;
  /**
   * Starts the next test's server, unless no later test in this file runs. Called once the test's
   * own start is over (its window opened), so the two do not compete for the CPU.
   */
  prepareNext(): void;
  /** Whether a test after the running one in this file will run (read in its beforeEach). */
  laterTestRuns(): boolean;
  /**
   * A new folder for a shared window, in which every server of the pool runs agent sessions too;
   * only with `windowFolders`. Removed after the file's last test.
   */
  windowFolder(): WindowFolder;
}

export interface SparkServePoolOptions {
  /** Whether the file's tests share windows (see shared-window.ts). */
  windowFolders?: boolean;
}

/** Registers the file's hooks: the first spare starts in beforeAll, the last is stopped after. */
export function useSparkServePool({
  windowFolders = false,
}: SparkServePoolOptions = {}): SparkServePool {
  let spare: SpareSparkServe | undefined;
  let laterTestRuns = true;
  let windowsRoot: string | undefined;
  /** The roots besides its own every server of the pool runs agent sessions in. */
  const otherRoots = (): string[] => (windowsRoot === undefined ? [] : [windowsRoot]);
  const startSpare = (): SpareSparkServe => SpareSparkServe.start(otherRoots());

  beforeAll(() => {
    if (windowFolders)
      windowsRoot = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-windows-")));
    spare = startSpare();
  });
  beforeEach((context) => {
    laterTestRuns = hasLaterTest(context.task.file, context.task.id);
  });
  afterAll(async () => {
    await spare?.discard();
    spare = undefined;
    if (windowsRoot !== undefined) rmSync(windowsRoot, { recursive: true, force: true });
    windowsRoot = undefined;
  });

  return {
    async take(turns, options = {}) {
      if (options.configToml !== undefined) {
        // It too runs sessions in the windows folder, should it take a shared window.
        const workspace = createAgentWorkspace();
        const extraArgs = workspaceRootArguments(workspace.root, otherRoots());
        return startSparkServe(turns, { workspace, extraArgs, configToml: options.configToml });
      }
      const taken = spare ?? startSpare();
      spare = undefined;
      return taken.take(turns);
    },
    prepareNext() {
      if (spare === undefined && laterTestRuns) spare = startSpare();
    },
    laterTestRuns: () => laterTestRuns,
    windowFolder() {
      if (windowsRoot === undefined)
        throw new Error("windowFolder() needs useSparkServePool({ windowFolders: true })");
      // Removed with the windows folder after the file's last test.
      return createAgentWorkspace(windowsRoot);
    },
  };
}

/** Whether a test after `testId` in the file will run (not skipped, filtered out or todo). */
function hasLaterTest(file: RunnerTestFile, testId: string): boolean {
  const tests: RunnerTask[] = [];
  const collect = (tasks: readonly RunnerTask[]): void => {
    for (const task of tasks) {
      if (task.type === "suite") collect(task.tasks);
      else tests.push(task);
    }
  };
  collect(file.tasks);
  const index = tests.findIndex((test) => test.id === testId);
  return tests.slice(index + 1).some((test) => test.mode === "run" || test.mode === "only");
}
