// One `spark serve` a test, as before, but each started ahead: while a test runs, the next one's
// server gets through its start and waits for its turns (see spare-spark-serve.ts). A test that
// brings its own config.toml (keys, models) starts its server itself: the spare's config is read.
import type { RunnerTask, RunnerTestFile } from "vitest";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startSparkServe, type SparkServeProcess } from "../../web/support/spark-serve-process.ts";
import { SpareSparkServe } from "./spare-spark-serve.ts";

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
}

/** Registers the file's hooks: the first spare starts in beforeAll, the last is stopped after. */
export function useSparkServePool(): SparkServePool {
  let spare: SpareSparkServe | undefined;
  let laterTestRuns = true;

  beforeAll(() => {
    spare = SpareSparkServe.start();
  });
  beforeEach((context) => {
    laterTestRuns = hasLaterTest(context.task.file, context.task.id);
  });
  afterAll(async () => {
    await spare?.discard();
    spare = undefined;
  });

  return {
    async take(turns, options = {}) {
      if (options.configToml !== undefined)
        return startSparkServe(turns, { configToml: options.configToml });
      const taken = spare ?? SpareSparkServe.start();
      spare = undefined;
      return taken.take(turns);
    },
    prepareNext() {
      if (spare === undefined && laterTestRuns) spare = SpareSparkServe.start();
    },
    laterTestRuns: () => laterTestRuns,
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
