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

/** End-to-end files that change module state for their own cases (vi.mock). */
const ISOLATED_FILES = ["test/app-server/session-list-resume-race.test.ts"];

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**", "editors/vscode/.code-server/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    // Every project runs in one group of three workers, which they all inherit (vitest wants one
    // worker count per group). The sequencer starts the editor files first (the slowest: each keeps
    // chromium, code-server and its extension hosts busy), then the other end-to-end folders, then
    // the rest; as each editor file ends, a worker takes the next file, whatever its project. Many
    // end-to-end files wait (servers starting, timers, leases): with two workers the machine idled
    // 7–40% of each 30 s there, with three ~10%. The editor files once ran first in a group of
    // their own on two workers: its last file then ran alone for ~30 s with the other core idle
    // before the next group could start, and one group for all took a full run from 468.7 s to
    // 451.5 s. The model files load native contexts with one thread each.
    maxWorkers: 3,
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
        // Without isolation as the end-to-end files below.
        test: { name: "editor", include: EDITOR_FILES, isolate: false },
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
