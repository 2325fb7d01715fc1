// Host sampling's own cost per token on the native loop's decode thread, as the addon clocks it
// (top-k selection, the chain after it; wall time on that thread), and how many samples had top-k
// ties that sent select_top_k to llama.cpp's sort of the whole vocabulary: plain text jobs, no
// grammar, one sequence, on the backend the bench's engines run on.
import type { Token } from "node-llama-cpp";
import type { GpuSetting } from "../../src/engines/llama-cpp/llama-backend.ts";
import { openNativeBenchContext } from "./native-bench-context.ts";

export interface SamplingTime {
  temperature: number;
  samples: number;
  microsecondsPerSample: number;
  topKFallbacks: number;
}

/** Best (lowest) of `rounds` jobs per temperature, after a warm-up job. */
export async function measureHostSampling(options: {
  modelPath: string;
  promptTokens: readonly Token[];
  temperatures: readonly number[];
  threads: number;
  tokens: number;
  rounds: number;
  gpu?: GpuSetting;
}): Promise<SamplingTime[]> {
  const { context } = await openNativeBenchContext({
    modelPath: options.modelPath,
    contextSize: options.promptTokens.length + options.tokens + 64,
    threads: options.threads,
    ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
  });
  const run = async (temperature: number, tokens: number): Promise<SamplingTime> => {
    const lease = await context.pool.acquire(undefined, undefined, undefined);
    try {
      const job = lease.sequence.tokens([...options.promptTokens], {
        maxTokens: tokens,
        sampling: { temperature, seed: 1 },
        defaultTemperature: 0,
        deviceSampling: false,
      });
      for await (const _token of job.tokens) {
        // drained: the counts come with the job's end
      }
      const sampling = job.hostSampling();
      if (sampling === undefined) throw new Error("a host-sampled job ended without its timing");
      return {
        temperature,
        samples: sampling.samples,
        microsecondsPerSample: sampling.microseconds / Math.max(1, sampling.samples),
        topKFallbacks: sampling.topKFallbacks,
      };
    } finally {
      lease.release();
    }
  };
  try {
    await run(0, 8);
    const results: SamplingTime[] = [];
    for (const temperature of options.temperatures) {
      let best: SamplingTime | undefined;
      for (let round = 0; round < options.rounds; round += 1) {
        const time = await run(temperature, options.tokens);
        if (best === undefined || time.microsecondsPerSample < best.microsecondsPerSample)
          best = time;
      }
      if (best !== undefined) results.push(best);
    }
    return results;
  } finally {
    context.dispose();
  }
}
