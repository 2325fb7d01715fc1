import { defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/support/slow-first-sequencer.ts";

/** Unit tests beside the code: no processes, servers or native contexts outlive a file. */
const UNIT_FILES = [
  "src/**/*.test.{ts,tsx}",
  "web/src/**/*.test.{ts,tsx}",
  "editors/vscode/src/**/*.test.ts",
];

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**", "editors/vscode/.code-server/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Model-dependent tests load native llama.cpp contexts; two cores cannot run many at once.
    maxWorkers: 2,
    fileParallelism: true,
    sequence: { sequencer: SlowFirstSequencer },
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
        // Real servers, browsers, editors and CLIs: each file in a process of its own.
        test: { name: "end-to-end", include: ["test/**/*.test.{ts,tsx}"] },
      },
    ],
  },
});
