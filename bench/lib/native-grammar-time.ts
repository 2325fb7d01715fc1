// The grammar's own CPU time per call token on the native loop's decode thread (every check,
// sample drawn again and accept, as the addon times it with the thread's CPU clock), for each way of drawing a refused sample
// again: a call's JSON under the tools' grammar, sampled straight after a newline on one native
// sequence. Far steadier than the difference of two CPU times on a busy machine.
import type { Token } from "node-llama-cpp";
import type { ToolDefinition } from "../../src/engines/engine.ts";
import { GrammarCache } from "../../src/engines/llama-cpp/grammar-cache.ts";
import type { GpuSetting } from "../../src/engines/llama-cpp/llama-backend.ts";
import type {
  GrammarResamples,
  GrammarSearch,
} from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { openNativeBenchContext } from "./native-bench-context.ts";

export const grammarSearches: GrammarSearch[] = [
  "token-prefixes",
  "top-candidates",
  "full-vocabulary",
];

export interface GrammarTime {
  search: GrammarSearch;
  sampling: string;
  tokens: number;
  microsecondsPerToken: number;
  resamples: GrammarResamples;
}

const samplings = [
  { label: "greedy", temperature: 0 },
  { label: "temperature 1, seed 1", temperature: 1 },
];

/** Best (lowest) of `rounds` jobs of `tokens` tokens per search and sampling, after a warm-up. */
export async function measureGrammarTime(options: {
  modelPath: string;
  tools: ToolDefinition[];
  threads: number;
  tokens: number;
  rounds: number;
  /** The backend the bench's engines run on (a process binds the native loop to one). */
  gpu?: GpuSetting;
}): Promise<GrammarTime[]> {
  const { backend, context } = await openNativeBenchContext({
    modelPath: options.modelPath,
    contextSize: options.tokens + 64,
    threads: options.threads,
    ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
  });
  const grammar = await new GrammarCache(backend.llama).nativeCallGrammar(options.tools);
  const run = async (search: GrammarSearch, temperature: number, tokens: number) => {
    const lease = await context.pool.acquire(undefined, undefined, undefined);
    try {
      const job = lease.sequence.tokens([10 as Token], {
        maxTokens: tokens,
        sampling: { temperature, seed: 1 },
        defaultTemperature: 0,
        grammar: { ...grammar, search },
      });
      let count = 0;
      for await (const _token of job.tokens) count += 1;
      const resamples = job.grammarResamples();
      if (resamples === undefined) throw new Error("a grammar job ended without its timing");
      return { count, resamples };
    } finally {
      lease.release();
    }
  };
  try {
    // The first refusal builds the vocabulary's prefix tree once per model: not a call's cost.
    await run("token-prefixes", 0, 8);
    const results: GrammarTime[] = [];
    for (const sampling of samplings) {
      for (const search of grammarSearches) {
        let best: GrammarTime | undefined;
        for (let round = 0; round < options.rounds; round += 1) {
          const { count, resamples } = await run(search, sampling.temperature, options.tokens);
          const microsecondsPerToken = resamples.microseconds / Math.max(1, count);
          if (best === undefined || microsecondsPerToken < best.microsecondsPerToken) {
            best = {
              search,
              sampling: sampling.label,
              tokens: count,
              microsecondsPerToken,
              resamples,
            };
          }
        }
        if (best !== undefined) results.push(best);
      }
    }
    return results;
  } finally {
    context.dispose();
  }
}
