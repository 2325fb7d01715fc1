// Per-token cost of the embedded engine, side by side in one run on the same GGUF and threads:
// node-llama-cpp's bare evaluate loop (its default batch dispatch, and dispatch on a microtask)
// vs Spark's engine stream (adaptive dispatch, and node-llama-cpp's default). Variants are
// interleaved and the best of several rounds is kept, so background load hits them alike.
// Compare with llama.cpp's own `llama-bench -m <file> -p 0 -n <tokens> -t <threads>`.
// Usage: npx tsx bench/llama-token-overhead.ts [--model file.gguf] [--tokens 256] [--threads 1,2] [--rounds 5]
import { parseArgs } from "node:util";
import { getLlama, LlamaLogLevel, type LlamaModel } from "node-llama-cpp";
import { collectStream } from "../src/engines/collect-stream.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../test/support/test-model.ts";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    tokens: { type: "string", default: "256" },
    threads: { type: "string", default: "1,2" },
    rounds: { type: "string", default: "5" },
  },
});
const modelPath = values.model ?? (await ensureTestModel());
const tokenCount = Number(values.tokens);
const rounds = Number(values.rounds);
const threadCounts = values.threads.split(",").map(Number);

interface Sample {
  tokensPerSecond: number;
  cpuMicrosecondsPerToken: number;
}

async function bareEvaluate(
  model: LlamaModel,
  threads: number,
  microtask: boolean,
): Promise<Sample> {
  const context = await model.createContext({
    contextSize: 2048,
    threads,
    sequences: 1,
    ...(microtask
      ? { batching: { dispatchSchedule: (dispatch: () => void) => queueMicrotask(dispatch) } }
      : {}),
  });
  const sequence = context.getSequence();
  let produced = 0;
  let startedAt = 0;
  let cpuAtStart = process.cpuUsage();
  for await (const _token of sequence.evaluate(model.tokenize("Once upon a time"), {
    temperature: 0,
  })) {
    if (produced === 0) {
      startedAt = performance.now();
      cpuAtStart = process.cpuUsage();
    }
    produced += 1;
    if (produced > tokenCount) break;
  }
  const elapsed = performance.now() - startedAt;
  const cpu = process.cpuUsage(cpuAtStart);
  await context.dispose();
  return {
    tokensPerSecond: (tokenCount * 1000) / elapsed,
    cpuMicrosecondsPerToken: (cpu.user + cpu.system) / tokenCount,
  };
}

async function sparkEngine(
  threads: number,
  batchDispatch: "adaptive" | "next-cycle",
): Promise<Sample> {
  const engine = await createLlamaCppEngine({
    modelPath,
    threads,
    sequences: 1,
    contextSize: 2048,
    batchDispatch,
  });
  const cpuAtStart = process.cpuUsage();
  const result = await collectStream(
    engine.stream({
      messages: [{ role: "user", content: "Once upon a time" }],
      sampling: { temperature: 0, maxOutputTokens: tokenCount + 1 },
    }),
  );
  const cpu = process.cpuUsage(cpuAtStart);
  await engine.dispose();
  return {
    tokensPerSecond: result.timings?.decodeTokensPerSecond ?? 0,
    cpuMicrosecondsPerToken: (cpu.user + cpu.system) / (result.usage?.outputTokens ?? 1),
  };
}

const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath });
console.log(
  `model ${modelPath}\n${tokenCount} tokens per run, best of ${rounds} interleaved rounds`,
);
console.log("threads | variant | tokens/s | ms/token | CPU µs/token | vs bare default");
for (const threads of threadCounts) {
  const variants: Record<string, () => Promise<Sample>> = {
    "bare evaluate (next-cycle dispatch)": () => bareEvaluate(model, threads, false),
    "bare evaluate (microtask dispatch)": () => bareEvaluate(model, threads, true),
    "spark engine (adaptive dispatch)": () => sparkEngine(threads, "adaptive"),
    "spark engine (next-cycle dispatch)": () => sparkEngine(threads, "next-cycle"),
  };
  const best = new Map<string, Sample>();
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, run] of Object.entries(variants)) {
      const sample = await run();
      const previous = best.get(name);
      if (previous === undefined || sample.tokensPerSecond > previous.tokensPerSecond)
        best.set(name, sample);
    }
  }
  const baseline = best.get("bare evaluate (next-cycle dispatch)")?.tokensPerSecond ?? 1;
  for (const [name, sample] of best) {
    console.log(
      `${threads} | ${name} | ${sample.tokensPerSecond.toFixed(0)} | ${(1000 / sample.tokensPerSecond).toFixed(3)} | ${sample.cpuMicrosecondsPerToken.toFixed(0)} | ${(sample.tokensPerSecond / baseline).toFixed(2)}×`,
    );
  }
}
await model.dispose();
