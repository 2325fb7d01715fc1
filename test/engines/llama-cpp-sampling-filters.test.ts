// top_k and min_p on both decode loops of the embedded engine (and the native loop sampling on
// llama.cpp's backend): each, set to keep only the most likely token, turns hot seeded sampling
// into greedy decoding, so its text must be the greedy text. A filter the loop ignored would let
// the seeds wander (checked: without one they do). Penalties are refused, not ignored.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { SamplingOptions } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
  type LlamaCppEngineOptions,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";

const nativeBuilt = existsSync(defaultAddonPath);
if (!nativeBuilt)
  console.warn("Skipping the native-loop filter cases: the native loop is not built.");

const loops: Array<{ name: string; options: Partial<LlamaCppEngineOptions>; native: boolean }> = [
  {
    name: "native loop, host sampling",
    options: { decodeLoop: "native", deviceSampling: "off" },
    native: true,
  },
  {
    name: "native loop, device sampling",
    options: { decodeLoop: "native", deviceSampling: "on" },
    native: true,
  },
  { name: "node-llama-cpp's loop", options: { decodeLoop: "node-llama-cpp" }, native: false },
];

for (const loop of loops) {
  describe.skipIf(loop.native && !nativeBuilt)(`sampling filters: ${loop.name}`, () => {
    let engine: LlamaCppEngine;
    beforeAll(async () => {
      engine = await createLlamaCppEngine({
        modelPath: await ensureTestModel(),
        threads: 1,
        sequences: 1,
        contextSize: 512,
        ...loop.options,
      });
    });
    afterAll(async () => {
      await engine.dispose();
    });
    const text = async (sampling: SamplingOptions) => {
      const result = await collectStream(
        engine.stream({
          messages: [{ role: "user", content: "Tell me a story." }],
          sampling: { maxOutputTokens: 20, ...sampling },
        }),
      );
      if (result.error !== undefined) throw result.error;
      return result.text;
    };

    it("top_k 1 and min_p 1 leave the greedy text at any seed", async () => {
      const greedy = await text({ temperature: 0 });
      for (const seed of [1, 2, 3]) {
        expect(await text({ temperature: 1.5, seed, topK: 1 })).toBe(greedy);
        expect(await text({ temperature: 1.5, seed, minP: 1, topK: 0 })).toBe(greedy);
      }
      const free = await Promise.all(
        [1, 2, 3].map((seed) => text({ temperature: 1.5, seed, topK: 0 })),
      );
      expect(free.some((sampled) => sampled !== greedy)).toBe(true);
    });

    it("refuses a non-zero penalty and takes 0", async () => {
      const refused = await collectStream(
        engine.stream({
          messages: [{ role: "user", content: "Hi" }],
          sampling: { maxOutputTokens: 4, presencePenalty: 0.5 },
        }),
      );
      expect(refused.error?.code).toBe("invalid_request");
      expect(refused.error?.message).toMatch(/presence_penalty/);
      expect(await text({ temperature: 0, presencePenalty: 0, frequencyPenalty: 0 })).not.toBe("");
    });
  });
}
