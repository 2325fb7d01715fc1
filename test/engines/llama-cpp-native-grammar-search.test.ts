// The native loop draws a sample the tool-call grammar refused again without checking the whole
// vocabulary (the top candidates by logit, then the tokens whose prefixes the grammar accepts):
// the tokens must be those of the full-vocabulary path, greedy and for a seed, on noise models
// (nearly every structural token refused) and a scripted one (equal logits everywhere but one).
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Token } from "node-llama-cpp";
import type { ToolDefinition } from "../../src/engines/engine.ts";
import { GrammarCache } from "../../src/engines/llama-cpp/grammar-cache.ts";
import { getSharedLlamaBackend } from "../../src/engines/llama-cpp/llama-backend.ts";
import {
  defaultAddonPath,
  type GenerationLoopAddon,
  type GrammarResamples,
  type GrammarSearch,
} from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { NativeContext } from "../../src/engines/llama-cpp/native-loop/native-context.ts";
import type { NativeGrammar } from "../../src/engines/llama-cpp/native-loop/native-sequence.ts";
import { findNativeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import type { EnsureTestModelOptions } from "../support/test-model.ts";
import { ensureTestModel } from "../support/test-model.ts";

const describeNative = existsSync(defaultAddonPath) ? describe : describe.skip;

const tools: ToolDefinition[] = [
  {
    name: "write_note",
    description: "Write a note",
    parameters: {
      type: "object",
      properties: { content: { type: "string" } },
      required: ["content"],
    },
  },
  {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

/** Opens a call's JSON and writes "XYZXYZ…" in any string it reaches. */
const writesJson = { "\n": "{", "{": '"', '"': "X", X: "Y", Y: "Z", Z: "X" };

interface Sampling {
  label: string;
  temperature: number;
  seed?: number;
}
const samplings: Sampling[] = [
  { label: "greedy", temperature: 0 },
  { label: "seed 1", temperature: 1, seed: 1 },
  { label: "seed 2", temperature: 1.5, seed: 2 },
];

interface Run {
  tokens: number[];
  resamples: GrammarResamples;
}

class GrammarJobs {
  private constructor(
    private readonly context: NativeContext,
    private readonly grammar: NativeGrammar,
  ) {}

  static async open(
    addon: GenerationLoopAddon,
    model: EnsureTestModelOptions,
    grammar: NativeGrammar,
  ) {
    const context = await NativeContext.create(addon, {
      modelPath: await ensureTestModel(model),
      contextSize: 256,
      sequences: 1,
      threads: 1,
      batchSize: 64,
      gpuLayers: 0,
    });
    return new GrammarJobs(context, grammar);
  }

  async run(search: GrammarSearch, sampling: Sampling, maxTokens: number): Promise<Run> {
    const lease = await this.context.pool.acquire(undefined, undefined, undefined);
    try {
      const job = lease.sequence.tokens([10 as Token], {
        maxTokens,
        sampling: { temperature: sampling.temperature, seed: sampling.seed ?? 0 },
        defaultTemperature: 0,
        grammar: { ...this.grammar, search },
      });
      const tokens: number[] = [];
      for await (const token of job.tokens) tokens.push(token);
      const resamples = job.grammarResamples();
      if (resamples === undefined)
        throw new Error("a grammar job ended without its resample counts");
      return { tokens, resamples };
    } finally {
      lease.release();
    }
  }

  dispose(): void {
    this.context.dispose();
  }
}

const sum = (runs: Run[], where: keyof GrammarResamples): number =>
  runs.reduce((total, run) => total + run.resamples[where], 0);

describeNative("native loop: sampling again within a tool-call grammar", () => {
  let addon: GenerationLoopAddon;
  let grammar: NativeGrammar;
  beforeAll(async () => {
    const backend = await getSharedLlamaBackend("auto");
    const found = findNativeLoop("native", backend);
    if (found.addon === undefined) throw new Error(found.reason);
    addon = found.addon;
    grammar = await new GrammarCache(backend.llama).nativeCallGrammar(tools);
  });

  // `walks`: whether the prefix walk settles refusals. The tiny 320-token vocabulary is left to
  // the full pass (the walk would check most of it anyway).
  const models: { label: string; model: EnsureTestModelOptions; walks: boolean }[] = [
    // 16,384 tokens: the prefix walk goes several levels down (a grammar clone per level).
    { label: "noise, wide vocabulary", model: { shape: "wide" }, walks: true },
    { label: "noise, tiny", model: {}, walks: false },
    { label: "scripted JSON, tiny", model: { successors: writesJson }, walks: false },
  ];
  const tokens = 40;
  for (const { label, model, walks } of models) {
    describe(label, () => {
      let jobs: GrammarJobs;
      beforeAll(async () => {
        jobs = await GrammarJobs.open(addon, model, grammar);
      });
      afterAll(() => jobs?.dispose());

      it("gives the full-vocabulary path's tokens, greedy and for a seed, by either search", async () => {
        const prefixRuns: Run[] = [];
        const topRuns: Run[] = [];
        for (const sampling of samplings) {
          const full = await jobs.run("full-vocabulary", sampling, tokens);
          // Refusals there were (the noise model's call opens with `{"name"` character by character).
          expect(full.resamples.vocabulary, sampling.label).toBeGreaterThan(3);
          expect(full.resamples.top + full.resamples.prefixes).toBe(0);
          const prefixes = await jobs.run("token-prefixes", sampling, tokens);
          const top = await jobs.run("top-candidates", sampling, tokens);
          expect(prefixes.tokens, sampling.label).toEqual(full.tokens);
          expect(top.tokens, sampling.label).toEqual(full.tokens);
          // Every refusal was counted once, whichever way it was drawn again.
          const refusals = (run: Run) =>
            run.resamples.top + run.resamples.prefixes + run.resamples.vocabulary;
          expect(refusals(prefixes)).toBe(refusals(full));
          expect(refusals(top)).toBe(refusals(full));
          prefixRuns.push(prefixes);
          topRuns.push(top);
        }
        // Where fewer than top-k of the top candidates are allowed (a structural character at a
        // temperature) the prefix walk settles it, and the top-candidates search falls back to
        // the whole vocabulary: the same tokens above came from those paths.
        expect(sum(prefixRuns, "prefixes") > 0).toBe(walks);
        expect(sum(topRuns, "vocabulary")).toBeGreaterThan(0);
        expect(sum(topRuns, "top")).toBeGreaterThan(0);
      });
    });
  }
});
