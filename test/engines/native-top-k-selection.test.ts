// The native loop samples without llama.cpp's candidate array: select_top_k (top-k with a
// temperature) and first_maximum (greedy) read the logits directly. They must leave exactly what
// llama.cpp's own samplers leave on the same logits, or the text for a seed changes. The program
// (bench/native/top-k-cost.cpp) draws logits, runs both ways and counts differences; logits
// where most entries are 0 (the project's random-weight test models) once made select_top_k pool
// the whole vocabulary, so they are among the cases.
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildTopKCost,
  runTopKCost,
  type TopKCostCase,
} from "../../bench/lib/top-k-cost-program.ts";

const ROUNDS = 40;

describe.skipIf(process.platform !== "linux")("native top-k and greedy against llama.cpp", () => {
  let executable = "";
  beforeAll(async () => {
    executable = await buildTopKCost();
  }, 120_000);

  const cases: Array<TopKCostCase & { name: string; decides: "all" | "none" }> = [
    {
      name: "continuous logits, Qwen's vocabulary",
      vocabulary: 151_936,
      tieStep: 0,
      nonzero: 0,
      decides: "all",
    },
    {
      name: "logits rounded to 0.5 (ties at the k-th place)",
      vocabulary: 151_936,
      tieStep: 0.5,
      nonzero: 0,
      decides: "none",
    },
    {
      name: "logits rounded to 4 (ties for the highest: greedy keeps the first)",
      vocabulary: 151_936,
      tieStep: 4,
      nonzero: 0,
      decides: "none",
    },
    {
      name: "4,096 logits drawn, the rest 0",
      vocabulary: 151_936,
      tieStep: 0,
      nonzero: 4096,
      decides: "all",
    },
    {
      name: "41 logits drawn, the rest 0 (the k-th place is a tie at 0)",
      vocabulary: 151_936,
      tieStep: 0,
      nonzero: 41,
      decides: "none",
    },
    { name: "a small vocabulary", vocabulary: 320, tieStep: 0, nonzero: 0, decides: "all" },
  ];
  for (const testCase of cases) {
    it(`leaves llama.cpp's tokens in llama.cpp's order: ${testCase.name}`, async () => {
      const result = await runTopKCost(executable, testCase, ROUNDS);
      expect(result.rounds).toBe(ROUNDS);
      expect(result.mismatches).toBe(0);
      expect(result.greedyMismatches).toBe(0);
      // Undecided rounds take llama.cpp's own path; continuous logits must never need it.
      expect(result.fallbacks).toBe(testCase.decides === "all" ? 0 : ROUNDS);
    });
  }
});
