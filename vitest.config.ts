import { configDefaults, defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/support/slow-first-sequencer.ts";

/** Unit tests beside the code: no processes, servers or native contexts outlive a file. */
const UNIT_FILES = [
  "src/**/*.test.{ts,tsx}",
  "web/src/**/*.test.{ts,tsx}",
  "editors/vscode/src/**/*.test.ts",
];

/** The code-server files: each keeps chromium, code-server and its extension hosts busy. */
const EDITOR_FILES = ["test/editor/**/*.test.ts"];

/**
 * Each project names its worker count through its group (none is set for the whole run). The
 * editor files run first, two at a time: they alone keep both cores busy. The unit files run
 * in the same group, after them (the sequencer puts the slow ones first), on the worker the last
 * editor files leave free. The end-to-end files run after that group, three at a time: many wait
 * (servers starting, timers, leases), and with two workers the machine idled 7–40% of each 30 s
 * there; with three, 1–7%. The model files in it load native contexts with one thread each.
 */
const EDITOR_GROUP = { maxWorkers: 2, sequence: { groupOrder: 0 } };
const END_TO_END_GROUP = { maxWorkers: 3, sequence: { groupOrder: 1 } };

/** End-to-end files that change module state for their own cases (vi.mock). */
const ISOLATED_FILES = ["test/app-server/session-list-resume-race.test.ts"];

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**", "editors/vscode/.code-server/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
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
        test: { name: "unit", include: UNIT_FILES, isolate: false, ...EDITOR_GROUP },
      },
      {
        extends: true,
        // Without isolation as the end-to-end files below.
        test: { name: "editor", include: EDITOR_FILES, isolate: false, ...EDITOR_GROUP },
      },
      {
        extends: true,
        // The end-to-end files too: each starts and stops its own servers, browsers, editors and
        // CLIs, and what they import once per worker instead of once per file (the gateway, the
        // agent, node-llama-cpp) was a third of their CPU.
        test: {
          name: "end-to-end",
          include: ["test/**/*.test.{ts,tsx}"],
          exclude: [...configDefaults.exclude, ...EDITOR_FILES, ...ISOLATED_FILES],
          isolate: false,
          ...END_TO_END_GROUP,
        },
      },
      {
        extends: true,
        // Files that replace a module (vi.mock) for their own cases run in a process of their own.
        test: { name: "isolated", include: ISOLATED_FILES, ...END_TO_END_GROUP },
      },
    ],
  },
});
