import { configDefaults, defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/support/slow-first-sequencer.ts";

/** Unit tests beside the code: no processes, servers or native contexts outlive a file. */
const UNIT_FILES = [
  "src/**/*.test.{ts,tsx}",
  "web/src/**/*.test.{ts,tsx}",
  "editors/vscode/src/**/*.test.ts",
];

/** End-to-end files that change module state for their own cases (vi.mock). */
const ISOLATED_FILES = ["test/app-server/session-list-resume-race.test.ts"];

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**", "editors/vscode/.code-server/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Model-dependent tests load native llama.cpp contexts; two cores cannot run many at once.
    maxWorkers: 2,
    fileParallelism: true,
    sequence: { sequencer: SlowFirstSequencer },
    // Records nothing unless SPARK_TEST_CPU names a file (see test/support/file-cpu-report.ts).
    setupFiles: ["test/support/file-cpu-report.ts"],
    projects: [
      {
        extends: true,
        // One process per worker runs its unit files one after another, importing the modules
        // they share once: a fresh process and module graph per file cost more CPU than most of
        // these files' tests (the run is CPU-bound on two cores).
        test: { name: "unit", include: UNIT_FILES, isolate: false },
      },
      {
        extends: true,
        // The end-to-end files too: each starts and stops its own servers, browsers, editors and
        // CLIs, and what they import once per worker instead of once per file (the gateway, the
        // agent, node-llama-cpp) was a third of their CPU.
        test: {
          name: "end-to-end",
          include: ["test/**/*.test.{ts,tsx}"],
          exclude: [...configDefaults.exclude, ...ISOLATED_FILES],
          isolate: false,
        },
      },
      {
        extends: true,
        // Files that replace a module (vi.mock) for their own cases run in a process of their own.
        test: { name: "isolated", include: ISOLATED_FILES },
      },
    ],
  },
});
