import { defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/support/slow-first-sequencer.ts";

export default defineConfig({
  test: {
    include: [
      "src/**/*.test.{ts,tsx}",
      "test/**/*.test.{ts,tsx}",
      "web/src/**/*.test.{ts,tsx}",
      "editors/vscode/src/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "editors/vscode/.code-server/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Model-dependent tests load native llama.cpp contexts; two cores cannot run many at once.
    maxWorkers: 2,
    fileParallelism: true,
    sequence: { sequencer: SlowFirstSequencer },
  },
});
