// A host-sampled native job reports its sampler's own time on the decode thread and how many
// samples top-k ties handed to llama.cpp's sort (bench/llama-token-overhead.ts prints them: that
// figure found the 2 ms a token the GPU run lost to sampling). Counted per sample, not guessed.
import { existsSync } from "node:fs";
import type { Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { measureHostSampling } from "../../bench/lib/native-sampling-time.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";

const notBuilt = existsSync(defaultAddonPath) ? undefined : "the native loop is not built";
if (notBuilt !== undefined) console.warn(`Skipping the host sampling report test: ${notBuilt}.`);

describe.skipIf(notBuilt !== undefined)("host sampling report", () => {
  it("counts every sampled token, its time, and no top-k fallback when greedy", async () => {
    const times = await measureHostSampling({
      modelPath: await ensureTestModel(),
      promptTokens: [1, 2, 3] as Token[],
      temperatures: [0, 0.7],
      threads: 1,
      tokens: 24,
      rounds: 1,
    });
    expect(times.map((time) => time.temperature)).toEqual([0, 0.7]);
    for (const time of times) {
      expect(time.samples).toBe(24);
      expect(time.microsecondsPerSample).toBeGreaterThan(0);
      expect(time.topKFallbacks).toBeLessThanOrEqual(time.samples);
    }
    // Greedy never builds a top-k.
    expect(times[0]?.topKFallbacks).toBe(0);
  }, 60_000);
});
