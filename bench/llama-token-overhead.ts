// Per-token cost of the embedded engine, side by side in one run: node-llama-cpp's bare evaluate
// loop vs Spark's engine stream, at each thread count, on the same GGUF. Compare with llama-bench
// (`llama-bench -m <file> -p 0 -n 128 -t 1,2`) for the native ceiling.
// Usage: npx tsx bench/llama-token-overhead.ts [--model file.gguf] [--tokens 256] [--threads 1,2]
import { parseArgs } from "node:util";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { collectStream } from "../src/engines/collect-stream.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../test/support/test-model.ts";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    tokens: { type: "string", default: "256" },
    threads: { type: "string", default: "1,2" },
    repeats: { type: "string", default: "3" },
  },
});
const modelPath = values.model ?? (await ensureTestModel());
const tokenCount = Number(values.tokens);
const repeats = Number(values.repeats);
const threadCounts = values.threads.split(",").map(Number);

const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath });

async function bareEvaluate(threads: number): Promise<number> {
  const context = await model.createContext({ contextSize: 2048, threads, sequences: 1 });
  const sequence = context.getSequence();
  const prompt = model.tokenize("Once upon a time");
  let best = 0;
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    await sequence.clearHistory();
    let produced = 0;
    let startedAt = 0;
    for await (const _token of sequence.evaluate(prompt, { temperature: 0 })) {
      if (produced === 0) startedAt = performance.now();
      produced += 1;
      if (produced > tokenCount) break;
    }
    best = Math.max(best, (tokenCount * 1000) / (performance.now() - startedAt));
  }
  await context.dispose();
  return best;
}

async function sparkEngine(threads: number): Promise<number> {
  const engine = await createLlamaCppEngine({
    modelPath,
    threads,
    sequences: 1,
    contextSize: 2048,
  });
  let best = 0;
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    const result = await collectStream(
      engine.stream({
        messages: [{ role: "user", content: `Once upon a time ${repeat}` }],
        sampling: { temperature: 0, maxOutputTokens: tokenCount + 1 },
      }),
    );
    best = Math.max(best, result.timings?.decodeTokensPerSecond ?? 0);
  }
  await engine.dispose();
  return best;
}

console.log(`model ${modelPath}, ${tokenCount} tokens, best of ${repeats}`);
console.log("threads | bare evaluate tok/s | spark engine tok/s | spark/bare");
for (const threads of threadCounts) {
  const bare = await bareEvaluate(threads);
  const spark = await sparkEngine(threads);
  console.log(
    `${threads} | ${bare.toFixed(0)} | ${spark.toFixed(0)} | ${(spark / bare).toFixed(2)}`,
  );
}
await model.dispose();
